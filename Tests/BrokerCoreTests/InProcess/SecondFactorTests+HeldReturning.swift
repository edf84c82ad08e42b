import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A returning provider sign-in held for its second factor spends its single-use mark when it is held (a replay of
/// the same provider token is refused as on any sign-in, and starts no second held sign-in), and the provider token
/// it brought (Apple's refresh token) is stored, sealed, when the second factor completes, as a returning sign-in
/// without a factor stores it.
extension SecondFactorTests {
    /// A broker with Apple's code exchange and `mfa.totp`, and an Apple account `subject` with an enrolled factor.
    static func heldAppleAccount(
        _ subject: String
    ) async throws -> (InProcessBroker, ManualClock, OutboxCipher, uid: AccountID, secret: String, factorID: String) {
        let clock = ManualClock(Date())
        let cipher = try Self.cipher
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyFile = try StubProviders().appleAuth.writeKeyFile(into: directory)
        let broker = try await InProcessBroker.start(clock: clock, adminToken: adminToken, cipher: cipher) { document in
            guard case .object(var members) = AppleCodeExchangeTests.withClientSecret(document, keyFile: keyFile)
            else { return document }
            members["mfa"] = ["totp": ["enabled": true]]
            return .object(members)
        }
        let code = broker.stubs.appleAuth.issueCode(subject: subject)
        let session = await broker.post(
            "/v1/signin/apple", try AppleCodeExchangeTests.body(broker, subject: subject, code: code))
        #expect(session.status == 201)
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let started = await broker.post("/v1/me/mfa/totp", [:], headers: bearer(session))
        let secret = try #require(started.json?["secret"]?.stringValue)
        let verified = await broker.post(
            "/v1/me/mfa/totp/verify",
            [
                "enrollmentId": .string(try #require(started.json?["enrollmentId"]?.stringValue)),
                "code": .string(try Self.code(secret, clock)),
            ], headers: bearer(session))
        #expect(verified.status == 200)
        clock.advance(by: 30)
        let factorID = try #require(verified.json?["factor"]?["factorId"]?.stringValue)
        return (broker, clock, cipher, uid, secret, factorID)
    }

    @Test func aHeldReturningSignInSpendsItsTokenAndStoresItsProviderTokenOnCompletion() async throws {
        let (broker, clock, cipher, uid, secret, factorID) = try await Self.heldAppleAccount("a-held")
        func stored() async throws -> String? {
            let sealed = await broker.store.account(id: uid)?.identity(ProviderID("apple"))?.providerToken
            return try sealed.map { try cipher.open($0, context: "provider-token:apple:a-held") }
        }
        let first = try #require(broker.stubs.appleAuth.issuedRefreshTokens.first)
        #expect(try await stored() == first)
        let sessions = await Self.liveSessions(broker, uid)
        let signIns = await Self.events(broker, .signIn).filter { $0.outcome == "success" }.count

        let body = try AppleCodeExchangeTests.body(
            broker, subject: "a-held", code: broker.stubs.appleAuth.issueCode(subject: "a-held"))
        let held = await broker.post("/v1/signin/apple", body)
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        let newer = try #require(broker.stubs.appleAuth.issuedRefreshTokens.last)
        #expect(newer != first)
        // Held: nothing of the sign-in is stored yet (the old token, no session, no sign-in event).
        #expect(try await stored() == first)
        #expect(await Self.liveSessions(broker, uid) == sessions)

        // The same identity token again is a replay, refused as on any sign-in, and holds nothing.
        guard case .object(var members) = body else { return }
        members["authorizationCode"] = nil
        let replay = await broker.post("/v1/signin/apple", .object(members))
        #expect(replay.status == 401 && replay.errorCode == "TOKEN_REPLAYED")
        #expect(replay.json?["error"]?["mfaPendingCredential"] == nil)
        #expect(try await stored() == first)
        #expect(await Self.liveSessions(broker, uid) == sessions)
        #expect(await Self.events(broker, .signIn).filter { $0.outcome == "success" }.count == signIns)

        let done = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(try Self.pending(held)), "factorId": .string(factorID),
                "code": .string(try Self.code(secret, clock)),
            ])
        #expect(done.status == 200)
        #expect(done.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        // Completed: the newer refresh token is the one stored, sealed, with the session.
        #expect(try await stored() == newer)
        let sealed = await broker.store.account(id: uid)?.identity(ProviderID("apple"))?.providerToken
        #expect(sealed?.contains(newer) == false)
        #expect(await Self.liveSessions(broker, uid) == sessions + 1)
    }

    /// A held link spends its mark when it is held too: the token cannot start a second held link.
    @Test func aHeldLinksTokenCannotHoldASecondSignIn() async throws {
        let (broker, clock, user) = try await Self.heldLinkAccount("twice@example.com")
        let token = try broker.stubs.idToken(
            "apple",
            claims: [
                "sub": "a-twice", "email": "twice@example.com", "email_verified": true,
                "nonce": .string(Hex.encode(Digest.sha256("n-twice"))),
            ])
        let body: JSONValue = ["identityToken": .string(token), "rawNonce": "n-twice"]
        let held = await broker.post("/v1/signin/apple", body)
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        let replay = await broker.post("/v1/signin/apple", body)
        #expect(replay.status == 401 && replay.errorCode == "TOKEN_REPLAYED")
        #expect(await broker.store.account(provider: ProviderID("apple"), subject: "a-twice") == nil)
        // The first held link still completes, once.
        let done = try await Self.finish(broker, clock, user, credential: try Self.pending(held))
        #expect(done.status == 200)
        #expect(await broker.store.account(provider: ProviderID("apple"), subject: "a-twice")?.id == user.uid)
        #expect(await Self.events(broker, .link).map(\.provider) == ["apple"])
    }
}
