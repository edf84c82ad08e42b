import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct PasswordAccountTests {
    @Test func signUpCreatesAnUnverifiedPasswordAccount() async throws {
        try await withBroker { broker in
            let response = try await broker.post(
                "/v1/signup", ["email": "New@Example.com", "password": "secret1", "displayName": "New"])
            #expect(response.status == 201)
            #expect(response.json?["isNewUser"] == true)
            #expect(response.json?["user"]?["email"] == "New@Example.com")
            #expect(response.json?["user"]?["emailVerified"] == false)
            #expect(response.json?["user"]?["displayName"] == "New")
            #expect(response.json?["user"]?["identities"] == [])
            let idToken = try #require(response.json?["idToken"]?.stringValue)
            #expect(JWKSVerification.claims(of: idToken, jwks: try await broker.jwks())?["sign_in_provider"] == "password")
            let stored = try #require(try await broker.store.account(email: "new@example.com"))
            #expect(stored.password?.hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$") == true)
            #expect(stored.password?.hash.contains("secret1") == false)
        }
    }

    struct BadSignUp: Sendable, CustomTestStringConvertible {
        var body: JSONValue
        var code: String
        var testDescription: String { code + " " + String(decoding: body.serialized(), as: UTF8.self) }
    }

    static let badSignUps: [BadSignUp] = [
        BadSignUp(body: ["email": "a@example.com", "password": "12345"], code: "WEAK_PASSWORD"),
        BadSignUp(body: ["email": "a@example.com", "password": ""], code: "WEAK_PASSWORD"),
        BadSignUp(body: ["email": "not-an-email", "password": "secret1"], code: "INVALID_EMAIL"),
        BadSignUp(body: ["email": "a@b", "password": "secret1"], code: "INVALID_EMAIL"),
        BadSignUp(body: ["email": "a b@example.com", "password": "secret1"], code: "INVALID_EMAIL"),
        BadSignUp(body: ["email": "a@example.com"], code: "INVALID_REQUEST"),
        BadSignUp(body: ["password": "secret1"], code: "INVALID_REQUEST"),
        BadSignUp(body: ["email": 5, "password": "secret1"], code: "INVALID_REQUEST"),
        BadSignUp(body: ["email": "a@example.com", "password": "secret1", "displayName": 5], code: "INVALID_REQUEST"),
    ]

    @Test(arguments: badSignUps)
    func aRefusedSignUpStoresNothing(_ bad: BadSignUp) async throws {
        try await withBroker { broker in
            let response = try await broker.post("/v1/signup", bad.body)
            #expect(response.status == 400)
            #expect(response.errorCode == bad.code)
            #expect(try await broker.count("accounts") == 0)
            #expect(try await broker.count("refresh_tokens") == 0)
        }
    }

    @Test func twentyConcurrentSignUpsWithOneEmailGiveOne201() async throws {
        try await withBroker { broker in
            let emails = (0..<20).map { index in index % 2 == 0 ? "race@example.com" : "RACE@Example.COM" }
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for email in emails {
                    group.addTask {
                        let response = try await broker.post("/v1/signup", ["email": .string(email), "password": "secret1"])
                        return (response.status, response.errorCode)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1)
            #expect(statuses.filter { $0.0 == 409 && $0.1 == "EMAIL_EXISTS" }.count == 19)
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func anEmailHeldByAProviderAccountCannotSignUp() async throws {
        try await withBroker { broker in
            _ = try await broker.googleSignIn(["sub": "g-1", "email": "held@example.com", "email_verified": true])
            let response = try await broker.post("/v1/signup", ["email": "Held@example.com", "password": "secret1"])
            #expect(response.status == 409)
            #expect(response.errorCode == "EMAIL_EXISTS")
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func passwordSignInAnswersAlikeForAWrongEmailAndAWrongPassword() async throws {
        try await withBroker { broker in
            _ = try await broker.post("/v1/signup", ["email": "user@example.com", "password": "right-one"])
            let good = try await broker.post("/v1/signin/password", ["email": "USER@example.com", "password": "right-one"])
            #expect(good.status == 200)
            #expect(good.json?["isNewUser"] == false)
            let wrongPassword = try await broker.post("/v1/signin/password", ["email": "user@example.com", "password": "wrong-one"])
            let wrongEmail = try await broker.post("/v1/signin/password", ["email": "nobody@example.com", "password": "right-one"])
            #expect(wrongPassword.status == 400)
            #expect(wrongPassword.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(wrongEmail.status == 400)
            #expect(wrongEmail.body == wrongPassword.body)
            #expect(try await broker.count("refresh_tokens") == 2)
        }
    }

    @Test func tenFailuresLockTheAccountForFifteenMinutesEvenForTheRightPassword() async throws {
        // Between two milliseconds, rounded up when stored: the wait is still at most the 15 minutes.
        let clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 0.0006))
        try await withBroker(clock: clock) { broker in
            _ = try await broker.post("/v1/signup", ["email": "lock@example.com", "password": "right-one"])
            for _ in 0..<10 {
                let wrong = try await broker.post("/v1/signin/password", ["email": "lock@example.com", "password": "nope-nope"])
                #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
            }
            let locked = try await broker.post("/v1/signin/password", ["email": "Lock@example.com", "password": "right-one"])
            #expect(locked.status == 429)
            #expect(locked.errorCode == "TOO_MANY_ATTEMPTS")
            let retryAfter = try #require(locked.headers["retry-after"].flatMap(Int.init))
            #expect(retryAfter == 900)
            #expect(try await broker.count("refresh_tokens") == 1)
            clock.advance(by: 901)
            let unlocked = try await broker.post("/v1/signin/password", ["email": "lock@example.com", "password": "right-one"])
            #expect(unlocked.status == 200)
        }
    }

    @Test func aDisabledAccountCannotSignInWithItsPassword() async throws {
        try await withBroker { broker in
            let signUp = try await broker.post("/v1/signup", ["email": "off@example.com", "password": "right-one"])
            let uid = AccountID(try #require(signUp.json?["user"]?["uid"]?.stringValue))
            _ = try await broker.store.update(id: uid) { $0.disabled = true }
            let response = try await broker.post("/v1/signin/password", ["email": "off@example.com", "password": "right-one"])
            #expect(response.status == 403)
            #expect(response.errorCode == "USER_DISABLED")
        }
    }

    @Test func aVerifiedProviderEmailTakesOverAPreRegisteredAccount() async throws {
        try await withBroker { broker in
            // The attacker signs up first with the victim's address (never verified) and keeps a session.
            let attacker = try await broker.post("/v1/signup", ["email": "victim@example.com", "password": "attacker-pw"])
            let attackerRefresh = try #require(attacker.json?["refreshToken"]?.stringValue)
            let attackerIDToken = try #require(attacker.json?["idToken"]?.stringValue)
            let uid = try #require(attacker.json?["user"]?["uid"]?.stringValue)
            // (Revocation works in whole seconds, as iat does: let the attacker's token's second pass.)
            try await Task.sleep(for: .milliseconds(1100))
            // The victim signs in with Google, whose email is verified.
            let victim = try await broker.googleSignIn(["sub": "g-victim", "email": "victim@example.com", "email_verified": true])
            #expect(victim.status == 200)
            #expect(victim.json?["user"]?["uid"]?.stringValue == uid)
            #expect(victim.json?["user"]?["emailVerified"] == true)
            // The attacker has no way in left.
            let password = try await broker.post("/v1/signin/password", ["email": "victim@example.com", "password": "attacker-pw"])
            #expect(password.errorCode == "INVALID_LOGIN_CREDENTIALS")
            let refresh = try await broker.post("/v1/token", ["refreshToken": .string(attackerRefresh)])
            #expect(refresh.errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await broker.store.account(id: AccountID(uid))?.password?.hash == nil)
            // Nor does the attacker's unexpired ID token still open /v1/me; the victim's does.
            let me = try await broker.get("/v1/me", headers: ["Authorization": "Bearer \(attackerIDToken)"])
            #expect(me.status == 401)
            #expect(me.errorCode == "UNAUTHENTICATED")
            let victimIDToken = try #require(victim.json?["idToken"]?.stringValue)
            #expect(try await broker.get("/v1/me", headers: ["Authorization": "Bearer \(victimIDToken)"]).status == 200)
        }
    }
}
