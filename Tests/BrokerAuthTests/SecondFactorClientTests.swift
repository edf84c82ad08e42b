import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@testable import BrokerAuth

/// The sign-in's second step through BrokerAuth against a live broker with `mfa.totp` on (contract section 14): a
/// password sign-in of an account with an authenticator app throws ``BrokerAuthError/mfaRequired(_:)`` and leaves
/// the client signed out; a code finishes it, and `currentUser` is then signed in with an ID token carrying `mfa`.
@Suite struct SecondFactorClientTests {
    /// A live broker with second factors on.
    static func withSecondFactorBroker<T>(_ body: (BrokerHarness) async throws -> T) async throws -> T {
        let cipher = OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32)))
        let harness = try await BrokerHarness.start(serviceAccount: true, cipher: cipher) { document in
            guard case .object(var members) = document else { return document }
            members["mfa"] = ["totp": ["enabled": true, "issuer": "Acme"]]
            return .object(members)
        }
        return try await harness.stopping(after: body)
    }

    /// A code of `secret` (base32) for the current time step moved by `offset`.
    static func code(_ secret: String, offset: Int = 0) throws -> String {
        let step = TOTP.step(unixTime: Date().timeIntervalSince1970, period: 30)
        return TOTP.code(secret: try #require(Base32.decode(secret)), counter: UInt64(Int(step) + offset), digits: 6)
    }

    /// Enrols an authenticator app for the account `auth` is signed in to: its secret and factor id.
    static func enrol(_ broker: BrokerHarness, _ auth: BrokerAuth) async throws -> (secret: String, factorID: String) {
        let bearer = ["Authorization": "Bearer " + (try await auth.idToken())]
        let started = try await broker.post("/v1/me/mfa/totp", [:], headers: bearer)
        #expect(started.status == 200)
        let secret = try #require(started.json?["secret"]?.stringValue)
        let verified = try await broker.post(
            "/v1/me/mfa/totp/verify",
            [
                "enrollmentId": .string(try #require(started.json?["enrollmentId"]?.stringValue)),
                "code": .string(try code(secret)), "displayName": "Phone",
            ], headers: bearer)
        #expect(verified.status == 200)
        return (secret, try #require(verified.json?["factor"]?["factorId"]?.stringValue))
    }

    @Test func aPasswordSignInAsksForTheSecondFactorAndACodeFinishesIt() async throws {
        try await Self.withSecondFactorBroker { broker in
            let owner = broker.client()
            let created = try await owner.signUp(email: "two-step@example.com", password: "correct horse")
            let factor = try await Self.enrol(broker, owner)

            let auth = broker.client()
            let changes = auth.sessionChanges
            let error = await #expect(throws: BrokerAuthError.self) {
                try await auth.signIn(email: "two-step@example.com", password: "correct horse")
            }
            guard case .mfaRequired(let pending)? = error else {
                Issue.record("the sign-in was not held for its second factor: \(String(describing: error))")
                return
            }
            #expect(pending.factors == [SecondFactor(factorID: factor.factorID, type: "totp", displayName: "Phone")])
            #expect(!pending.credential.isEmpty)
            // Held: nothing signed in, nothing stored on the client.
            #expect(auth.currentUser == nil)
            await #expect(throws: BrokerAuthError.notSignedIn) { try await auth.idToken() }

            // A wrong code is the contract's error, and the client stays signed out.
            await #expect(throws: BrokerAuthError.invalidMFACode) {
                try await auth.signIn(resolving: pending, factorID: factor.factorID, code: "000000")
            }
            #expect(auth.currentUser == nil)

            // The enrolment used this step's code: the next step's finishes the sign-in.
            let result = try await auth.signIn(
                resolving: pending, factorID: factor.factorID, code: try Self.code(factor.secret, offset: 1))
            #expect(result.user.uid == created.user.uid)
            #expect(auth.currentUser == result.user)
            #expect(await take(1, from: changes) == [.signedIn(result.user)])
            let idToken = try await auth.idToken()
            let claims = try JWT(parsing: idToken).claims
            #expect(claims["mfa"] == "totp")
            #expect(claims["sub"]?.stringValue == created.user.uid)
            let me = try await broker.me(idToken)
            #expect(me.status == 200 && me.uid == created.user.uid)
            // The pending credential was spent with it.
            await #expect(throws: BrokerAuthError.invalidMFAPendingCredential) {
                try await broker.client().signIn(
                    resolving: pending, factorID: factor.factorID, code: try Self.code(factor.secret, offset: 1))
            }
        }
    }
}
