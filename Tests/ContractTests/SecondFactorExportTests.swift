import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// `broker admin export` and `broker admin import firebase` carry second factors (contract sections 8 and 14): each
/// factor's id, name and enrolment time and the recovery codes left always; the secrets only with
/// `--include-secrets`, sealed with `BROKER_ENCRYPTION_KEY` (never in clear), so that an import into a fresh database
/// of a broker with the same key restores working factors. Without the flag the import leaves the factors out and
/// says how many.
@Suite struct SecondFactorExportTests {
    /// A TOTP code of `secret` (base32) for the current step moved by `offset`.
    static func code(_ secret: String, offset: Int = 0) throws -> String {
        let step = TOTP.step(unixTime: Date().timeIntervalSince1970, period: 30)
        return TOTP.code(secret: try #require(Base32.decode(secret)), counter: UInt64(Int(step) + offset), digits: 6)
    }

    /// What one run needs: a directory, a config with `mfa.totp` on, a key.
    struct Setup {
        var directory: URL
        var config: String
        var environment: [String: String]

        func database(_ name: String) -> String { directory.appendingPathComponent("\(name).sqlite").path }

        /// `broker ARGUMENTS --database DATABASE --config CONFIG`, with the key unless `keyless`.
        func run(_ arguments: [String], database: String, keyless: Bool = false) async throws -> ChildProcess {
            let child = try ProcessTests.spawn(
                arguments + ["--database", database, "--config", config], environment: keyless ? [:] : environment)
            _ = try await child.wait()
            return child
        }

        /// `broker serve` on `database`.
        func serve(_ database: String) async throws -> BrokerProcess {
            var environment = environment
            environment["BROKER_CONFIG"] = config
            environment["BROKER_DATABASE"] = database
            return try await BrokerProcess.start(environment: environment)
        }
    }

    static func setup(_ stubs: StubProviders) throws -> Setup {
        let directory = try ProcessTests.temporaryDirectory()
        let config = directory.appendingPathComponent("providers.json").path
        let document = ConfigEdit.set(stubs.brokerConfig(), ["mfa"], ["totp": ["enabled": true, "issuer": "Acme"]])
        try Data(document.serialized()).write(to: URL(fileURLWithPath: config))
        let key = Base64.encode(SecureRandom.bytes(32))
        return Setup(directory: directory, config: config, environment: ["BROKER_ENCRYPTION_KEY": key])
    }

    /// A user `email` (password `secret-1`) enrolled on `broker`: uid, secret, factor id, recovery codes.
    static func enrol(
        _ broker: BrokerProcess, _ email: String
    ) async throws -> (uid: String, secret: String, factorID: String, recoveryCodes: [String]) {
        let session = try await broker.post("/v1/signup", ["email": .string(email), "password": "secret-1"])
        #expect(session.status == 201 || session.status == 200)
        let idToken = try #require(session.json?["idToken"]?.stringValue)
        let started = try await broker.request("POST", "/v1/me/mfa/totp", json: [:], bearer: idToken)
        #expect(started.status == 200)
        let secret = try #require(started.json?["secret"]?.stringValue)
        let verified = try await broker.request(
            "POST", "/v1/me/mfa/totp/verify",
            json: [
                "enrollmentId": .string(try #require(started.json?["enrollmentId"]?.stringValue)),
                "code": .string(try code(secret)), "displayName": "Phone",
            ], bearer: idToken)
        #expect(verified.status == 200)
        return (
            try #require(session.json?["user"]?["uid"]?.stringValue), secret,
            try #require(verified.json?["factor"]?["factorId"]?.stringValue),
            try #require(verified.json?["recoveryCodes"]?.arrayValue).compactMap(\.stringValue)
        )
    }

    /// The exported user `uid` of the file at `path`.
    static func exportedUser(_ path: String, _ uid: String) throws -> JSONValue {
        let file = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
        return try #require(file["users"]?.arrayValue?.first { $0["localId"]?.stringValue == uid })
    }

    @Test func anExportWithItsSecretsRestoresWorkingFactorsAndOneWithoutLeavesThemOut() async throws {
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        let setup = try Self.setup(stubs)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        do {
            try await roundTrip(setup)
        } catch {
            await stubs.stop()
            throw error
        }
        await stubs.stop()
    }

    private func roundTrip(_ setup: Setup) async throws {
        let first = setup.database("first")
        let broker = try await setup.serve(first)
        let user = try await Self.enrol(broker, "mfa-export@example.com")
        try await broker.stop()

        // Without --include-secrets: the factor's id, name and time, and the codes left; no secret material at all.
        let plain = setup.directory.appendingPathComponent("plain.json").path
        let plainRun = try await setup.run(["admin", "export", plain, "--json"], database: first)
        #expect(plainRun.status == 0, "\(plainRun.stderr)")
        #expect(JSONValue.parse(Array(plainRun.stdout.utf8))?["secondFactors"] == 1)
        let plainUser = try Self.exportedUser(plain, user.uid)
        let plainField = try #require(plainUser[FirebaseUserRecord.secondFactorsField])
        #expect(plainField["recoveryCodesLeft"] == 10 && plainField["sealedRecoveryCodes"] == nil)
        let plainFactor = try #require(plainField["factors"]?.arrayValue?.first)
        #expect(plainFactor["factorId"]?.stringValue == user.factorID && plainFactor["displayName"] == "Phone")
        #expect(plainFactor["type"] == "totp" && plainFactor["enrolledAt"]?.stringValue != nil)
        #expect(plainFactor["sealedSecret"] == nil && plainFactor["lastUsedStep"] == nil)
        let plainText = try String(contentsOfFile: plain, encoding: .utf8)
        #expect(!plainText.contains(user.secret))

        // With it: sealed, never in clear; refused without the key.
        let sealed = setup.directory.appendingPathComponent("sealed.json").path
        let keyless = try await setup.run(
            ["admin", "export", sealed, "--include-secrets"], database: first, keyless: true)
        #expect(keyless.status == 2 && keyless.stderr.contains("BROKER_ENCRYPTION_KEY"))
        #expect(!FileManager.default.fileExists(atPath: sealed))
        let sealedRun = try await setup.run(["admin", "export", sealed, "--include-secrets"], database: first)
        #expect(sealedRun.status == 0, "\(sealedRun.stderr)")
        let sealedText = try String(contentsOfFile: sealed, encoding: .utf8)
        #expect(!sealedText.contains(user.secret))
        for code in user.recoveryCodes {
            let hash = Hex.encode(Digest.sha256(Array(code.lowercased().filter { $0 != "-" }.utf8)))
            #expect(!sealedText.contains(hash) && !sealedText.contains(code))
        }
        let sealedField = try #require(try Self.exportedUser(sealed, user.uid)[FirebaseUserRecord.secondFactorsField])
        #expect(sealedField["factors"]?.arrayValue?.first?["sealedSecret"]?.stringValue != nil)
        #expect(sealedField["sealedRecoveryCodes"]?.stringValue != nil)

        // The plain file imports the user without the factor, and says so: the password alone signs in.
        let plainTarget = setup.database("plain")
        let plainImport = try await setup.run(["admin", "import", "firebase", plain, "--json"], database: plainTarget)
        #expect(plainImport.status == 0, "\(plainImport.stderr)")
        #expect(
            JSONValue.parse(Array(plainImport.stdout.utf8))
                == .object(["imported": 1, "unchanged": 0, "failed": [], "secondFactorsLeftOut": 1]))
        let plainBroker = try await setup.serve(plainTarget)
        let signedIn = try await plainBroker.post(
            "/v1/signin/password", ["email": "mfa-export@example.com", "password": "secret-1"])
        #expect(signedIn.status == 200)
        try await plainBroker.stop()

        // The sealed file needs the key it was sealed with: without one nothing is written (exit 2).
        let target = setup.database("second")
        let refused = try await setup.run(["admin", "import", "firebase", sealed], database: target, keyless: true)
        #expect(refused.status == 2 && refused.stderr.contains("BROKER_ENCRYPTION_KEY"))
        let imported = try await setup.run(["admin", "import", "firebase", sealed, "--json"], database: target)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            JSONValue.parse(Array(imported.stdout.utf8))
                == .object(["imported": 1, "unchanged": 0, "failed": [], "secondFactors": 1]))

        // The imported factor works: the password is held for it, and a code of the secret finishes the sign-in.
        let second = try await setup.serve(target)
        let held = try await second.post(
            "/v1/signin/password", ["email": "mfa-export@example.com", "password": "secret-1"])
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        #expect(held.json?["error"]?["factors"]?.arrayValue?.first?["factorId"]?.stringValue == user.factorID)
        let pending = try #require(held.json?["error"]?["mfaPendingCredential"]?.stringValue)
        // The enrolment's code was used: the export carried its step, so it does not work again.
        let reused = try await second.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(pending), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, offset: -1)),
            ])
        #expect(reused.status == 400 && reused.errorCode == "INVALID_MFA_CODE")
        let done = try await second.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(pending), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, offset: 1)),
            ])
        #expect(done.status == 200)
        #expect(done.json?["user"]?["uid"]?.stringValue == user.uid)
        // A recovery code travelled too.
        let again = try await second.post(
            "/v1/signin/password", ["email": "mfa-export@example.com", "password": "secret-1"])
        let recovered = try await second.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(
                    try #require(again.json?["error"]?["mfaPendingCredential"]?.stringValue)),
                "recoveryCode": .string(user.recoveryCodes[0]),
            ])
        #expect(recovered.status == 200)
        try await second.stop()

        // Under another key the secrets do not open: the user is refused, by index, and nothing of it is written.
        var otherKey = setup
        otherKey.environment["BROKER_ENCRYPTION_KEY"] = Base64.encode(SecureRandom.bytes(32))
        let other = try await otherKey.run(
            ["admin", "import", "firebase", sealed, "--json"], database: setup.database("other"))
        #expect(other.status == 1)
        let failed = JSONValue.parse(Array(other.stdout.utf8))?["failed"]?.arrayValue?.first
        #expect(failed?["index"] == 0)
        #expect(failed?["reason"]?.stringValue?.contains(FirebaseUserRecord.secondFactorsField) == true)
        let written = try await FirebaseRoundTripTests.withStore(setup.database("other")) { store in
            try await store.account(id: AccountID(user.uid))
        }
        #expect(written == nil)
    }
}
