@testable import BrokerCore
@testable import BrokerIdentity
@testable import BrokerModel
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
    static func kakao(email: String?, verified: Bool = true) -> ExternalIdentity {
        ExternalIdentity(provider: ProviderID("kakao"), subject: "4100000001", email: email, emailVerified: verified)
    }
    static func account(
        _ uid: String, identities: [Identity] = [], origin: AccountOrigin? = .import, emailVerified: Bool = false
    ) -> Account {
        Account(
            id: AccountID(uid), email: "k@example.kr", emailVerified: emailVerified, createdAt: now,
            identities: identities, password: .chosen("$argon2id$x"), origin: origin)
    }

    /// Contract section 2: the legacy match (imported accounts only) first, then the pre-hijack rule, then 409.
    @Test func emailPasswordMappingDecisions() {
        typealias Mapping = KakaoLegacyPasswordLinking
        let owner = Self.account("owner")
        let kakao = Self.kakao(email: "k@example.kr")
        #expect(Mapping.decide(identity: kakao, linked: owner, emailOwner: nil, passwordMatchesSubject: false) == .general(.signIn(owner)))
        #expect(Mapping.decide(identity: Self.kakao(email: nil), linked: nil, emailOwner: nil, passwordMatchesSubject: false) == .emailRequired)
        // A new Kakao user gets an account with the email and no password at all.
        #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: nil, passwordMatchesSubject: false) == .general(.create(claimEmail: true)))
        #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: owner, passwordMatchesSubject: true) == .legacyLink(owner))
        // No match on an unproven email: the pre-hijack rule when Kakao vouches for it, else a conflict.
        #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: owner, passwordMatchesSubject: false) == .general(.takeOver(owner)))
        let unvouched = Self.kakao(email: "k@example.kr", verified: false)
        #expect(Mapping.decide(identity: unvouched, linked: nil, emailOwner: owner, passwordMatchesSubject: false) == .general(.conflict(owner)))
        let proven = Self.account("proven", emailVerified: true)
        #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: proven, passwordMatchesSubject: false) == .general(.conflict(proven)))
        #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: proven, passwordMatchesSubject: true) == .legacyLink(proven))
        // A look-alike made through /v1/signup with the public id as its password never matches.
        for origin in [AccountOrigin.signup, .provider(ProviderID("google")), nil] {
            let lookAlike = Self.account("look-alike", origin: origin)
            #expect(!Mapping.isWorkaroundCandidate(lookAlike, provider: ProviderID("kakao")))
            #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: lookAlike, passwordMatchesSubject: true) == .general(.takeOver(lookAlike)))
            let provenLookAlike = Self.account("proven-look-alike", origin: origin, emailVerified: true)
            #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: provenLookAlike, passwordMatchesSubject: true) == .general(.conflict(provenLookAlike)))
        }
        // An imported account to which someone linked another provider since the import (signed in with the public
        // id before its owner came) is still the workaround's: the legacy link removes what was linked since.
        let intruder = Identity(provider: ProviderID("google"), subject: "attacker", email: nil, linkedAt: Self.now + 60)
        let prepared = Self.account("prepared", identities: [intruder])
        #expect(Mapping.isWorkaroundCandidate(prepared, provider: ProviderID("kakao")))
        #expect(Mapping.decide(identity: kakao, linked: nil, emailOwner: prepared, passwordMatchesSubject: true) == .legacyLink(prepared))
        #expect(Mapping.wasLinkedSinceImport(intruder, of: prepared))
        let imported = Identity(provider: ProviderID("apple"), subject: "own", email: nil, linkedAt: Self.now)
        #expect(!Mapping.wasLinkedSinceImport(imported, of: prepared))
        // One that holds a Kakao identity already is not (its owner has come).
        let kakaoLinked = Self.account(
            "kakao-linked", identities: [Identity(provider: ProviderID("kakao"), subject: "7", email: nil, linkedAt: Self.now)])
        #expect(!Mapping.isWorkaroundCandidate(kakaoLinked, provider: ProviderID("kakao")))
        var retired = Self.account("retired")
        retired.password?.isDerived = true
        #expect(!Mapping.isWorkaroundCandidate(retired, provider: ProviderID("kakao")))
        retired.password = nil
        #expect(!Mapping.isWorkaroundCandidate(retired, provider: ProviderID("kakao")))
        #expect(Mapping.workaroundPasswords(forSubject: "42") == ["42", "Optional(42)"])
    }

    @Test(arguments: [
        ("4100000001", true), ("Optional(4100000001)", true), ("0", true), ("Optional()", false), ("", false),
        ("4100000001a", false), ("optional(41)", false), ("Optional(41", false), (" 41", false), ("٤١", false),
    ])
    func idShapedPasswords(_ password: String, _ shaped: Bool) {
        #expect(KakaoProvider.isIDShaped(password) == shaped)
    }

    @Test func aDerivedPasswordIsNotASignInMethod() {
        var account = Self.account("a")
        #expect(LinkingPolicy.signInMethods(of: account) == ["password"])
        account.password?.isDerived = true
        #expect(LinkingPolicy.signInMethods(of: account) == [])
        #expect(!account.hasUsablePassword)
    }

    /// One optional credential: a chosen password replaces a derived one whole, and removing it leaves no flag.
    @Test func aChosenPasswordReplacesADerivedCredentialWhole() {
        var account = Self.account("a")
        account.password?.isDerived = true
        #expect(account.password?.isDerived == true && !account.hasUsablePassword)
        account.password = .chosen("new-hash")
        #expect(account.password?.hash == "new-hash" && account.password?.isDerived != true && account.hasUsablePassword)
        account.password = nil
        #expect(account.password?.hash == nil && account.password?.isDerived != true && !account.hasUsablePassword)
    }
}
