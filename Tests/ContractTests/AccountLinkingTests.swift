import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct AccountLinkingTests {
    @Test func aVerifiedEmailHeldByAnotherProvidersAccountConflicts() async throws {
        try await withBroker { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "same@example.com", "email_verified": true])
            #expect(google.status == 201)
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 11, email: "SAME@example.com"))
            #expect(kakao.status == 409)
            #expect(kakao.errorCode == "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL")
            #expect(kakao.json?["error"]?["existingProviders"] == ["google"])
            #expect(try await broker.isLinked("kakao", "11") == false)
            #expect(try await broker.count("accounts") == 1)
            #expect(try await broker.count("refresh_tokens") == 1)
        }
    }

    @Test func linkingByVerifiedEmailLinksWhenConfigured() async throws {
        try await withBroker(linkByVerifiedEmail: true) { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "same@example.com", "email_verified": true])
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 11, email: "same@example.com"))
            #expect(kakao.status == 200)
            #expect(kakao.json?["isNewUser"] == false)
            #expect(kakao.json?["user"]?["uid"] == google.json?["user"]?["uid"])
            let providers = kakao.json?["user"]?["identities"]?.arrayValue?.compactMap { $0["provider"]?.stringValue }
            #expect(Set(providers ?? []) == ["google", "kakao"])
        }
    }

    @Test func anUnverifiedProviderEmailNeverLinks() async throws {
        try await withBroker(linkByVerifiedEmail: true) { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "same@example.com", "email_verified": true])
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 12, email: "same@example.com", emailVerified: false))
            #expect(kakao.status == 201)
            #expect(kakao.json?["user"]?["uid"] != google.json?["user"]?["uid"])
            #expect(kakao.json?["user"]?["email"] == .null)
            #expect(kakao.json?["user"]?["identities"]?.arrayValue?.first?["email"] == "same@example.com")
            #expect(try await broker.count("accounts") == 2)
        }
    }

    @Test func aVerifiedEmailTakesOverAnAccountWhoseEmailWasNeverVerified() async throws {
        try await withBroker { broker in
            // An attacker registered the victim's address first, unverified, and holds a session.
            let squatter = Account(
                id: AccountID("squatter-account"), email: "victim@example.com", emailVerified: false,
                createdAt: Date(), identities: [Identity(provider: ProviderID("kakao"), subject: "666", email: "victim@example.com", linkedAt: Date())],
                password: .chosen("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"))
            try await broker.store.create(squatter)
            try await broker.store.insertRefreshToken(
                RefreshTokenRecord(
                    tokenHash: "squatter-session", sessionID: "s-1", accountID: squatter.id, signInProvider: "password",
                    createdAt: Date(), expiresAt: Date() + 3600))
            let victim = try await broker.googleSignIn(["sub": "g-victim", "email": "victim@example.com", "email_verified": true])
            #expect(victim.status == 200)
            #expect(victim.json?["user"]?["uid"] == "squatter-account")
            let account = try #require(try await broker.store.account(id: squatter.id))
            #expect(account.password?.hash == nil)
            #expect(account.identities.map(\.provider.rawValue) == ["google"])
            #expect(account.emailVerified)
            #expect(try await broker.isLinked("kakao", "666") == false)
            #expect(try await broker.store.refreshToken(hash: "squatter-session")?.revokedAt != nil)
        }
    }

    @Test func concurrentFirstSignInsOfOneIdentityMakeOneAccount() async throws {
        try await withBroker { broker in
            let tokens = try (0..<20).map { _ in
                try broker.stubs.idToken("google", claims: ["sub": "g-race", "email": "race@example.com", "email_verified": true])
            }
            let results = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for token in tokens { group.addTask { try await broker.post("/v1/signin/google", ["idToken": .string(token)]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0.status == 201 }.count == 1)
            #expect(results.filter { $0.status == 200 }.count == 19)
            #expect(Set(results.compactMap { $0.json?["user"]?["uid"]?.stringValue }).count == 1)
            #expect(try await broker.count("accounts") == 1)
            #expect(try await broker.count("identities") == 1)
        }
    }
}
