import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Two `broker serve` processes on one PostgreSQL database, as behind a load balancer: every race between
/// them is settled by the database. Runs when `BROKER_TEST_POSTGRES_URL` is set.
@Suite("PostgreSQL: two instances", .enabled(if: PostgresTestEnvironment.url != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresMultiInstanceTests {
    /// The two instances, the stub providers they trust, and their schema.
    struct Instances {
        let a: BrokerProcess
        let b: BrokerProcess
        let stubs: StubProviders
        let schema: PostgresContractSchema
        /// What both were started with.
        let environment: [String: String]

        /// A when `index` is even, B when odd.
        func instance(_ index: Int) -> BrokerProcess { index.isMultiple(of: 2) ? a : b }
    }

    /// Starts A, then B (the first instance makes the signing key, the second finds it), on a fresh schema.
    func withTwoInstances(_ body: (Instances) async throws -> Void) async throws {
        try await Self.withTwoInstances(on: try #require(PostgresTestEnvironment.url), body)
    }

    /// ``withTwoInstances(_:)`` on the database server at `base` (PostgreSQL itself, or a pooler in front of it),
    /// with `extra` in both instances' environment.
    static func withTwoInstances(
        on base: String, environment extra: [String: String] = [:], _ body: (Instances) async throws -> Void
    ) async throws {
        let schema = try await PostgresContractSchema.create(in: base)
        let directory = try ProcessTests.temporaryDirectory()
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        var started: [BrokerProcess] = []
        func cleanUp() async {
            for process in started { _ = try? await process.stop() }
            await stubs.stop()
            await schema.drop()
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            let configPath = directory.appendingPathComponent("providers.json").path
            // One public issuer for both, as behind a load balancer.
            try Data(stubs.brokerConfig(issuer: "https://auth.example.test").serialized())
                .write(to: URL(fileURLWithPath: configPath))
            let environment = ["BROKER_CONFIG": configPath, "BROKER_DATABASE": schema.url, "BROKER_DATABASE_POOL_SIZE": "3"]
                .merging(extra) { _, extra in extra }
            started.append(try await BrokerProcess.start(environment: environment))
            started.append(try await BrokerProcess.start(environment: environment))
            try await body(
                Instances(a: started[0], b: started[1], stubs: stubs, schema: schema, environment: environment))
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    @Test func instancesStartingTogetherOnAnEmptyDatabaseShareOneSigningKey() async throws {
        let base = try #require(PostgresTestEnvironment.url)
        let schema = try await PostgresContractSchema.create(in: base)
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:1").serialized())
            .write(to: URL(fileURLWithPath: configPath))
        let environment = ["BROKER_CONFIG": configPath, "BROKER_DATABASE": schema.url]
        async let first = BrokerProcess.start(environment: environment)
        async let second = BrokerProcess.start(environment: environment)
        let instances = try await [first, second]
        var keys: [Int?] = []
        for instance in instances { keys.append(try await instance.get("/.well-known/jwks.json").json?["keys"]?.arrayValue?.count) }
        for instance in instances { #expect(try await instance.stop() == 0) }
        #expect(try await schema.count("signing_keys") == 1)
        #expect(keys == [1, 1])
        await schema.drop()
    }

    static func appleToken(_ stubs: StubProviders, sub: String, rawNonce: String) throws -> String {
        try stubs.idToken("apple", claims: ["sub": .string(sub), "nonce": .string(TestTokens.hashedNonce(rawNonce))])
    }

    @Test func concurrentFirstSignInsOfOneIdentityThroughBothMakeOneAccount() async throws {
        try await withTwoInstances { instances in
            let token = try instances.stubs.idToken(
                "google", claims: ["sub": "g-race", "email": "race@example.com", "email_verified": true])
            let responses = try await withThrowingTaskGroup(of: InstanceResponse.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await instances.instance(index).post("/v1/signin/google", ["idToken": .string(token)])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.map(\.status).sorted() == [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
            #expect(Set(responses.compactMap { $0.json?["user"]?["uid"]?.stringValue }).count == 1)
            #expect(try await instances.schema.count("accounts") == 1)
            #expect(try await instances.schema.count("identities") == 1)
        }
    }

    @Test func oneEmailSignedUpThroughBothAtOnceGivesOne201() async throws {
        try await withTwoInstances { instances in
            let responses = try await withThrowingTaskGroup(of: InstanceResponse.self) { group in
                for index in 0..<6 {
                    let email = index.isMultiple(of: 3) ? "Dup@Example.com" : "dup@example.com"
                    group.addTask {
                        try await instances.instance(index).post(
                            "/v1/signup", ["email": .string(email), "password": .string("secret-\(index)")])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.map(\.status).sorted() == [201, 409, 409, 409, 409, 409])
            #expect(responses.filter { $0.status == 409 }.allSatisfy { $0.errorCode == "EMAIL_EXISTS" })
            #expect(try await instances.schema.count("accounts") == 1)
            #expect(try await instances.schema.count("refresh_tokens") == 1)
        }
    }

    @Test func anAppleTokenIsAcceptedOnceAcrossInstances() async throws {
        try await withTwoInstances { instances in
            let first = try Self.appleToken(instances.stubs, sub: "001.apple.race", rawNonce: "n-1")
            let accepted = try await instances.a.post("/v1/signin/apple", ["identityToken": .string(first), "rawNonce": "n-1"])
            #expect(accepted.status == 201)
            let replayed = try await instances.b.post("/v1/signin/apple", ["identityToken": .string(first), "rawNonce": "n-1"])
            #expect(replayed.status == 401)
            #expect(replayed.errorCode == "TOKEN_REPLAYED")

            // One new token presented to both at the same moment: one sign-in, one replay.
            let second = try Self.appleToken(instances.stubs, sub: "001.apple.race", rawNonce: "n-2")
            async let atA = instances.a.post("/v1/signin/apple", ["identityToken": .string(second), "rawNonce": "n-2"])
            async let atB = instances.b.post("/v1/signin/apple", ["identityToken": .string(second), "rawNonce": "n-2"])
            let both = try await [atA, atB]
            #expect(both.map(\.status).sorted() == [200, 401])
            #expect(both.contains { $0.errorCode == "TOKEN_REPLAYED" })
            #expect(try await instances.schema.count("used_marks") == 2)
            #expect(try await instances.schema.count("refresh_tokens") == 2)  // the two accepted sign-ins only
        }
    }

    @Test func failedPasswordsThroughBothInstancesLockTheAccount() async throws {
        try await withTwoInstances { instances in
            let signUp = try await instances.a.post("/v1/signup", ["email": "lock@example.com", "password": "right-one"])
            #expect(signUp.status == 201)
            for index in 0..<AccountService.lockoutThreshold {
                let wrong = try await instances.instance(index).post(
                    "/v1/signin/password", ["email": "lock@example.com", "password": .string("wrong-\(index)")])
                #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS", "attempt \(index)")
            }
            for instance in [instances.a, instances.b] {
                let locked = try await instance.post(
                    "/v1/signin/password", ["email": "LOCK@example.com", "password": "right-one"])
                #expect(locked.status == 429)
                #expect(locked.errorCode == "TOO_MANY_ATTEMPTS")
                #expect(Int(locked.headers["retry-after"] ?? "") ?? 0 > 0)
            }
            #expect(try await instances.schema.count("password_failures") == AccountService.lockoutThreshold)
            #expect(try await instances.schema.count("refresh_tokens") == 1)  // the sign-up's session only
        }
    }

    @Test func refreshTokensRotateAndReuseIsDetectedAcrossInstances() async throws {
        try await withTwoInstances { instances in
            let signIn = try await instances.a.post(
                "/v1/signin/google", ["idToken": .string(try instances.stubs.idToken("google", claims: ["sub": "g-rt"]))])
            let first = try #require(signIn.json?["refreshToken"]?.stringValue)

            let rotated = try await instances.b.post("/v1/token", ["refreshToken": .string(first)])
            #expect(rotated.status == 200)
            let second = try #require(rotated.json?["refreshToken"]?.stringValue)
            // A retry of the first token within the grace period (an app's concurrent refresh) still works, at A.
            let retried = try await instances.a.post("/v1/token", ["refreshToken": .string(first)])
            #expect(retried.status == 200)
            let third = try #require(retried.json?["refreshToken"]?.stringValue)
            #expect(Set([first, second, third]).count == 3)

            // Ten seconds pass (the rotation is moved back in the database rather than sleeping): presenting the
            // retired token again, at B, is reuse and revokes the whole session, at both instances.
            try await PostgresContractSchema.administer(instances.schema.url) { connection in
                try connection.execute(
                    "UPDATE refresh_tokens SET rotated_at = rotated_at - 60000 WHERE rotated_at IS NOT NULL", [])
            }
            let reuse = try await instances.b.post("/v1/token", ["refreshToken": .string(first)])
            #expect(reuse.status == 401)
            #expect(reuse.errorCode == "INVALID_REFRESH_TOKEN")
            for (token, instance) in [(second, instances.a), (third, instances.b), (second, instances.b)] {
                let refused = try await instance.post("/v1/token", ["refreshToken": .string(token)])
                #expect(refused.status == 401)
                #expect(refused.errorCode == "INVALID_REFRESH_TOKEN")
            }
            #expect(try await instances.schema.count("refresh_tokens", where: "revoked_at IS NULL") == 0)
        }
    }

    @Test func idTokensMintedByOneInstanceVerifyAtTheOther() async throws {
        try await withTwoInstances { instances in
            let signIn = try await instances.a.post(
                "/v1/signin/google", ["idToken": .string(try instances.stubs.idToken("google", claims: ["sub": "g-jwt"]))])
            let idToken = try #require(signIn.json?["idToken"]?.stringValue)
            let uid = try #require(signIn.json?["user"]?["uid"]?.stringValue)

            let jwksOfB = try #require(try await instances.b.get("/.well-known/jwks.json").json)
            #expect(JWKSVerification.claims(of: idToken, jwks: jwksOfB)?["sub"]?.stringValue == uid)
            let me = try await instances.b.get("/v1/me", bearer: idToken)
            #expect(me.status == 200)
            #expect(me.json?["uid"]?.stringValue == uid)
            #expect(try await instances.schema.count("signing_keys") == 1)

            // A key rotated elsewhere (`broker admin keys rotate`), and a third instance started since, which
            // signs with the new key: A and B have never seen it, and reload their keys when it comes.
            let rotation = try ProcessTests.spawn(["admin", "keys", "rotate"], environment: instances.environment)
            #expect(try await rotation.wait() == 0, "\(rotation.stderr)")
            let c = try await BrokerProcess.start(environment: instances.environment)
            do {
                let atC = try await c.post(
                    "/v1/signin/google", ["idToken": .string(try instances.stubs.idToken("google", claims: ["sub": "g-jwt"]))])
                #expect(atC.status == 200)
                let newToken = try #require(atC.json?["idToken"]?.stringValue)
                let oldKid = JWKSVerification.decode(idToken)?.header["kid"]?.stringValue
                let newKid = JWKSVerification.decode(newToken)?.header["kid"]?.stringValue
                #expect(newKid != nil && newKid != oldKid)
                // An instance reloads for an unknown kid at most once per `unknownKeyReloadInterval` (and A and B
                // loaded their keys when they started, moments ago).
                try await Task.sleep(for: .seconds(KeyRing.unknownKeyReloadInterval + 0.1))
                for instance in [instances.a, instances.b] {
                    let me = try await instance.get("/v1/me", bearer: newToken)
                    #expect(me.status == 200)
                    #expect(me.json?["uid"]?.stringValue == uid)
                    let jwks = try #require(try await instance.get("/.well-known/jwks.json").json)
                    #expect(JWKSVerification.claims(of: newToken, jwks: jwks)?["sub"]?.stringValue == uid)
                    // The token signed by the retired key still verifies, until it expires.
                    #expect(JWKSVerification.claims(of: idToken, jwks: jwks)?["sub"]?.stringValue == uid)
                    #expect(try await instance.get("/v1/me", bearer: idToken).status == 200)
                }
            } catch {
                _ = try? await c.stop()
                throw error
            }
            #expect(try await c.stop() == 0)
        }
    }
}
