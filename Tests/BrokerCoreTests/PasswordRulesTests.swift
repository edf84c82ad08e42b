@testable import BrokerCore
import Foundation
import Testing

@Suite struct PasswordRulesTests {
    @Test(arguments: ["a@example.com", "first.last+tag@mail.example.co.kr", "x@y.io", "Kim@EXAMPLE.com"])
    func acceptsAddresses(_ email: String) { #expect(PasswordPolicy.isValidEmail(email)) }

    @Test(arguments: [
        "", "plain", "@example.com", "a@", "a@b", "a@.com", "a@example..com", "a b@example.com", "a@exa mple.com",
        "a@@example.com", "a@-example.com", "\u{0}a@example.com", String(repeating: "a", count: 65) + "@example.com",
    ])
    func refusesNonAddresses(_ email: String) { #expect(!PasswordPolicy.isValidEmail(email)) }

    @Test func passwordsNeedSixCharacters() throws {
        #expect(throws: AccountError(.weakPassword)) { try PasswordPolicy.check(email: "a@example.com", password: "12345") }
        try PasswordPolicy.check(email: "a@example.com", password: "123456")
        try PasswordPolicy.check(email: "a@example.com", password: "비밀번호여섯")
        #expect(throws: AccountError(.invalidEmail)) { try PasswordPolicy.check(email: "bad", password: "123456") }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static func kakao(email: String?) -> ExternalIdentity {
        ExternalIdentity(provider: ProviderID("kakao"), subject: "4100000001", email: email, emailVerified: true)
    }
    static func account(_ uid: String, identities: [Identity] = []) -> Account {
        Account(id: AccountID(uid), email: "k@example.kr", createdAt: now, identities: identities, passwordHash: "$argon2id$x")
    }

    @Test func emailPasswordMappingDecisions() {
        let owner = Self.account("owner")
        let kakao = Self.kakao(email: "k@example.kr")
        #expect(KakaoLegacyPasswordLinking.decide(identity: kakao, linked: owner, emailOwner: nil, passwordMatchesSubject: false) == .signIn(owner))
        #expect(KakaoLegacyPasswordLinking.decide(identity: Self.kakao(email: nil), linked: nil, emailOwner: nil, passwordMatchesSubject: false) == .emailRequired)
        #expect(KakaoLegacyPasswordLinking.decide(identity: kakao, linked: nil, emailOwner: nil, passwordMatchesSubject: false) == .create)
        #expect(KakaoLegacyPasswordLinking.decide(identity: kakao, linked: nil, emailOwner: owner, passwordMatchesSubject: true) == .link(owner))
        #expect(KakaoLegacyPasswordLinking.decide(identity: kakao, linked: nil, emailOwner: owner, passwordMatchesSubject: false) == .conflict(owner))
        let otherKakao = Self.account(
            "other", identities: [Identity(provider: ProviderID("kakao"), subject: "999", email: nil, linkedAt: Self.now)])
        #expect(KakaoLegacyPasswordLinking.decide(identity: kakao, linked: nil, emailOwner: otherKakao, passwordMatchesSubject: true) == .conflict(otherKakao))
        // An account holding any identity is never linked, even when its password is the Kakao id (which is public).
        let prepared = Self.account(
            "prepared", identities: [Identity(provider: ProviderID("google"), subject: "attacker", email: nil, linkedAt: Self.now)])
        #expect(KakaoLegacyPasswordLinking.decide(identity: kakao, linked: nil, emailOwner: prepared, passwordMatchesSubject: true) == .conflict(prepared))
        #expect(KakaoLegacyPasswordLinking.workaroundPasswords(forSubject: "42") == ["42", "Optional(42)"])
    }

    @Test func aDerivedPasswordIsNotASignInMethod() {
        var account = Self.account("a")
        #expect(LinkingPolicy.signInMethods(of: account) == ["password"])
        account.passwordDerived = true
        #expect(LinkingPolicy.signInMethods(of: account) == [])
        #expect(!account.hasUsablePassword)
    }
}
