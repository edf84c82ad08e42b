import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@testable import BrokerAuth

/// Every way in, through BrokerAuth against a live broker and the stub providers: the answer, the client's state,
/// what the broker stored, and an ID token the broker accepts.
@Suite struct SignInTests {
    /// A provider sign-in: the credential from the stubs, and the provider and subject it must link.
    struct Kind: Sendable, CustomTestStringConvertible {
        var name: String
        var provider: String
        var subject: String
        var credential: @Sendable (StubProviders) throws -> ProviderCredential
        var testDescription: String { name }
    }

    static let kinds: [Kind] = [
        Kind(name: "google", provider: "google", subject: "g-1") {
            .google(idToken: try $0.idToken("google", claims: ["sub": "g-1"]))
        },
        Kind(name: "apple", provider: "apple", subject: "001.a") { stubs in
            let nonce = SignInNonce()
            let token = try stubs.idToken("apple", claims: ["sub": "001.a", "nonce": .string(nonce.hashed)])
            var name = PersonNameComponents()
            name.givenName = "Minjun"
            name.familyName = "Lee"
            return .apple(identityToken: token, rawNonce: nonce.raw, fullName: name)
        },
        Kind(name: "kakao", provider: "kakao", subject: "7001") {
            .kakao(accessToken: $0.kakaoAccessToken(for: KakaoStubUser(id: 7001)))
        },
        Kind(name: "kakaoOIDC", provider: "kakao", subject: "7002") {
            .kakaoOIDC(idToken: try $0.idToken("kakao", claims: ["sub": "7002"]))
        },
        Kind(name: "naver", provider: "naver", subject: "n-1") {
            .naver(accessToken: $0.naverAccessToken(for: NaverStubUser(id: "n-1")))
        },
        Kind(name: "line", provider: "line", subject: "U1") { stubs in
            let nonce = SignInNonce()
            return .line(
                idToken: try stubs.lineIDToken(claims: ["sub": "U1", "nonce": .string(nonce.hashed)]),
                rawNonce: nonce.raw)
        },
        Kind(name: "lineAccessToken", provider: "line", subject: "U2") {
            .lineAccessToken($0.lineAccessToken(for: LineStubUser(userID: "U2")))
        },
        Kind(name: "oidc", provider: StubProviders.oidcProviderID, subject: "c-1") {
            .oidc(provider: StubProviders.oidcProviderID, idToken: try $0.oidcIDToken(claims: ["sub": "c-1"]))
        },
    ]

    @Test(arguments: kinds)
    func aProviderSignInStartsASession(_ kind: Kind) async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            let changes = auth.sessionChanges
            let result = try await auth.signIn(with: try kind.credential(broker.stubs))
            #expect(result.isNewUser)
            #expect(result.customToken != nil)
            #expect(auth.customToken == result.customToken)
            #expect(auth.currentUser == result.user)
            #expect(result.user.identities.map(\.provider) == [kind.provider])
            let stored = try await broker.store.account(provider: ProviderID(kind.provider), subject: kind.subject)
            #expect(stored?.id.rawValue == result.user.uid)
            if kind.name == "apple" { #expect(result.user.displayName == "Minjun Lee") }
            let me = try await broker.me(try await auth.idToken())
            #expect(me.status == 200)
            #expect(me.uid == result.user.uid)
            #expect(await take(1, from: changes) == [.signedIn(result.user)])
            // The same credential kind again finds the account.
            let again = try await auth.signIn(with: try kind.credential(broker.stubs))
            #expect(!again.isNewUser)
            #expect(again.user.uid == result.user.uid)
        }
    }

    @Test func aRefusedSignInThrowsTheContractsErrorAndChangesNothing() async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            let nonce = SignInNonce()
            let token = try broker.stubs.idToken("apple", claims: ["nonce": .string(nonce.hashed)])
            await #expect(throws: BrokerAuthError.nonceMismatch) {
                try await auth.signIn(with: .apple(identityToken: token, rawNonce: SignInNonce().raw))
            }
            await #expect(throws: BrokerAuthError.invalidToken) {
                try await auth.signIn(with: .google(idToken: "not-a-token"))
            }
            #expect(auth.currentUser == nil)
            await #expect(throws: BrokerAuthError.notSignedIn) { try await auth.idToken() }
            #expect(try await broker.count("accounts") == 0)
            // A verified email another account holds: the providers it signs in with.
            let claims: [String: JSONValue] = ["email": "same@example.com", "email_verified": true]
            try await auth.signIn(with: .google(idToken: try broker.stubs.idToken("google", claims: claims)))
            let apple = try broker.stubs.idToken(
                "apple", claims: claims.merging(["nonce": .string(nonce.hashed)]) { $1 })
            await #expect(throws: BrokerAuthError.accountExists(existingProviders: ["google"])) {
                try await auth.signIn(with: .apple(identityToken: apple, rawNonce: nonce.raw))
            }
            #expect(auth.currentUser?.identities.map(\.provider) == ["google"])
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func emailAndPasswordSignUpThenSignIn() async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            let created = try await auth.signUp(
                email: "mina@example.com", password: "correct horse", displayName: "Mina")
            #expect(created.isNewUser)
            #expect(created.user.email == "mina@example.com")
            #expect(created.user.displayName == "Mina")
            #expect(auth.currentUser?.uid == created.user.uid)
            await #expect(throws: BrokerAuthError.emailExists) {
                try await broker.client().signUp(email: "MINA@example.com", password: "another one")
            }
            await #expect(throws: BrokerAuthError.weakPassword) {
                try await broker.client().signUp(email: "short@example.com", password: "12345")
            }
            let other = broker.client()
            await #expect(throws: BrokerAuthError.invalidLoginCredentials) {
                try await other.signIn(email: "mina@example.com", password: "wrong")
            }
            #expect(other.currentUser == nil)
            let signedIn = try await other.signIn(email: "mina@example.com", password: "correct horse")
            #expect(!signedIn.isNewUser)
            #expect(signedIn.user.uid == created.user.uid)
            #expect(try await broker.me(try await other.idToken()).uid == created.user.uid)
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func aGuestIsUpgradedInPlaceByALinkOrASignUp() async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            let guest = try await auth.signInAnonymously()
            #expect(guest.isNewUser)
            #expect(guest.user.isAnonymous)
            #expect(guest.user.identities.isEmpty)
            let changes = auth.sessionChanges
            let linked = try await auth.link(
                .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-up"])))
            #expect(linked.uid == guest.user.uid)
            #expect(!linked.isAnonymous)
            #expect(auth.currentUser == linked)
            #expect(await take(1, from: changes) == [.userUpdated(linked)])
            #expect(try await broker.me(try await auth.idToken()).uid == guest.user.uid)

            let second = broker.client()
            let other = try await second.signInAnonymously()
            // An identity another account holds: refused, the guest unchanged.
            await #expect(throws: BrokerAuthError.identityAlreadyLinked) {
                try await second.link(.google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-up"])))
            }
            #expect(second.currentUser?.isAnonymous == true)
            let upgraded = try await second.signUp(email: "guest@example.com", password: "secret-enough")
            #expect(upgraded.user.uid == other.user.uid)
            #expect(!upgraded.user.isAnonymous)
            #expect(!upgraded.isNewUser)
            #expect(second.currentUser?.email == "guest@example.com")
            let account = try await broker.store.account(id: AccountID(other.user.uid))
            #expect(account?.isAnonymous == false)
            #expect(try await broker.count("accounts") == 2)
        }
    }

    @Test func linkUnlinkAndProfile() async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            try await auth.signIn(with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-2"])))
            let linked = try await auth.link(
                .kakao(accessToken: broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: 42))))
            #expect(Set(linked.identities.map(\.provider)) == ["google", "kakao"])
            let unlinked = try await auth.unlink(provider: "google")
            #expect(unlinked.identities.map(\.provider) == ["kakao"])
            await #expect(throws: BrokerAuthError.lastIdentity) { try await auth.unlink(provider: "kakao") }
            #expect(try await broker.store.account(provider: ProviderID("google"), subject: "g-2") == nil)

            let named = try await auth.updateProfile(
                displayName: "Kim", photoURL: URL(string: "https://example.com/k.png"))
            #expect(named.displayName == "Kim")
            #expect(named.photoURL?.absoluteString == "https://example.com/k.png")
            let cleared = try await auth.updateProfile(displayName: .some(nil))
            #expect(cleared.displayName == nil)
            #expect(cleared.photoURL?.absoluteString == "https://example.com/k.png")
            #expect(try await auth.reloadUser() == cleared)
            #expect(auth.currentUser == cleared)
            #expect(try await broker.store.account(id: AccountID(cleared.uid))?.displayName == nil)
        }
    }

    @Test func aPasswordChangeGoesOnWithNewTokensAndEndsTheOthers() async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            let other = broker.client()
            let created = try await auth.signUp(email: "pw@example.com", password: "first secret")
            try await other.signIn(email: "pw@example.com", password: "first secret")
            let changes = auth.sessionChanges
            try await auth.updatePassword("second secret")
            #expect(await take(1, from: changes) == [.refreshed(try #require(auth.currentUser))])
            #expect(try await broker.me(try await auth.idToken()) == (200, created.user.uid))
            // The other session ended: its refresh is refused and it signs out.
            await #expect(throws: BrokerAuthError.invalidRefreshToken) { try await other.idToken(forceRefresh: true) }
            #expect(other.currentUser == nil)
            await #expect(throws: BrokerAuthError.weakPassword) { try await auth.updatePassword("short") }
            await #expect(throws: BrokerAuthError.invalidLoginCredentials) {
                try await broker.client().signIn(email: "pw@example.com", password: "first secret")
            }
            try await broker.client().signIn(email: "pw@example.com", password: "second secret")
        }
    }

    @Test func signOutAndDeleteEndTheSessionOnTheBroker() async throws {
        try await withLiveBroker { broker in
            let directory = try LiveBroker.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("session.json")
            let auth = broker.client(.file(file))
            try await auth.signIn(with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-3"])))
            let refreshToken = try #require(SessionKeeper.restore(from: FileVault(url: file))?.refreshToken)
            let changes = auth.sessionChanges
            try await auth.signOut()
            #expect(auth.currentUser == nil)
            #expect(auth.customToken == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(await take(1, from: changes) == [.signedOut])
            let refresh = try await broker.post("/v1/token", ["refreshToken": .string(refreshToken)])
            #expect(refresh.status == 401)
            #expect(refresh.errorCode == "INVALID_REFRESH_TOKEN")
            try await auth.signOut()  // signed out already: nothing to do

            let result = try await auth.signIn(
                with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-3"])))
            try await auth.deleteAccount()
            #expect(auth.currentUser == nil)
            #expect(try await broker.store.account(id: AccountID(result.user.uid)) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }
}
