import BrokerCore
import BrokerCrypto
import BrokerTesting
import Foundation
import Testing

/// One Firebase id per provider (docs/firebase.md, "Provider ids"): for every built-in provider and every credential
/// kind it accepts, a sign-in on the Firebase listener names the identity the same way in `signInWithIdp`'s
/// `providerId`, the ID token's `firebase.sign_in_provider` and `firebase.identities`, a refreshed ID token, and
/// `getAccountInfo`'s `providerUserInfo[].providerId`.
@Suite struct FirebaseProviderIDTests {
    /// One sign-in: the provider, the credential kind, the `providerId` sent, and the Firebase id expected.
    struct Case: Sendable, CustomTestStringConvertible {
        var provider: String
        var kind: CredentialKind
        var sent: String
        var expected: String
        var subject: String
        var testDescription: String { "\(provider) \(kind.rawValue) as \(sent)" }
    }

    static let nonce = "raw-nonce-1"

    static let cases: [Case] = [
        Case(provider: "google", kind: .idToken, sent: "google.com", expected: "google.com", subject: "g-1"),
        Case(provider: "apple", kind: .idToken, sent: "apple.com", expected: "apple.com", subject: "a-1"),
        Case(provider: "kakao", kind: .idToken, sent: "oidc.kakao", expected: "oidc.kakao", subject: "4100000011"),
        Case(provider: "kakao", kind: .accessToken, sent: "kakao", expected: "oidc.kakao", subject: "4100000012"),
        Case(provider: "kakao", kind: .accessToken, sent: "oidc.kakao", expected: "oidc.kakao", subject: "4100000013"),
        Case(provider: "naver", kind: .accessToken, sent: "naver", expected: "oidc.naver", subject: "n-1"),
        Case(provider: "naver", kind: .accessToken, sent: "oidc.naver", expected: "oidc.naver", subject: "n-2"),
        Case(
            provider: "line", kind: .idToken, sent: "oidc.line", expected: "oidc.line",
            subject: "U00000000000000000000000000000001"),
        Case(
            provider: "line", kind: .accessToken, sent: "line", expected: "oidc.line",
            subject: "U00000000000000000000000000000002"),
        Case(
            provider: "line", kind: .accessToken, sent: "oidc.line", expected: "oidc.line",
            subject: "U00000000000000000000000000000003"),
        Case(
            provider: StubProviders.oidcProviderID, kind: .idToken, sent: "oidc.corp", expected: "oidc.corp",
            subject: "corp-1"),
    ]

    /// The `postBody` of `test`'s credential, made by the stubs.
    static func postBody(_ test: Case, stubs: StubProviders) throws -> String {
        let token: String
        switch (test.provider, test.kind) {
        case ("apple", .idToken):
            let hashed = Hex.encode(Digest.sha256(nonce))
            token = try stubs.idToken("apple", claims: ["sub": .string(test.subject), "nonce": .string(hashed)])
            return "providerId=\(test.sent)&id_token=\(token)&nonce=\(nonce)"
        case ("google", .idToken), ("kakao", .idToken):
            token = try stubs.idToken(test.provider, claims: ["sub": .string(test.subject)])
        case ("line", .idToken): token = try stubs.lineIDToken(claims: ["sub": .string(test.subject)])
        case (StubProviders.oidcProviderID, .idToken):
            token = try stubs.oidcIDToken(claims: ["sub": .string(test.subject)])
        case ("kakao", .accessToken):
            token = stubs.kakaoAccessToken(for: KakaoStubUser(id: try #require(Int64(test.subject))))
        case ("naver", .accessToken): token = stubs.naverAccessToken(for: NaverStubUser(id: test.subject))
        case ("line", .accessToken): token = stubs.lineAccessToken(for: LineStubUser(userID: test.subject))
        default: throw ProviderError(.invalidRequest, "no stub credential for \(test.testDescription)")
        }
        let field = test.kind == .idToken ? "id_token" : "access_token"
        return "providerId=\(test.sent)&\(field)=\(token)"
    }

    /// The table covers every enabled built-in provider, with every kind of credential it accepts.
    @Test func theTableCoversEveryProviderAndKind() async throws {
        let broker = try await InProcessBroker.start()
        var expected: Set<String> = []
        for provider in broker.services.providers.all {
            if provider is any IDTokenVerifying { expected.insert("\(provider.id.rawValue) idToken") }
            if provider is any AccessTokenVerifying { expected.insert("\(provider.id.rawValue) accessToken") }
        }
        #expect(Set(Self.cases.map { "\($0.provider) \($0.kind.rawValue)" }) == expected)
    }

    @Test(arguments: cases)
    func everyAnswerNamesTheProviderByItsOneFirebaseID(_ test: Case) async throws {
        let broker = try await InProcessBroker.start()
        let response = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: try Self.postBody(test, stubs: broker.stubs))
        #expect(response.status == 200)
        #expect(response.json?["error"] == nil)
        #expect(response.json?["providerId"]?.stringValue == test.expected)
        let uid = try #require(response.json?["localId"]?.stringValue)
        let stored = try #require(
            await broker.store.account(provider: ProviderID(test.provider), subject: test.subject))
        #expect(stored.id == AccountID(uid))

        let idToken = try #require(response.json?["idToken"]?.stringValue)
        let firebase = try #require(JWKSVerification.decode(idToken)?.claims["firebase"])
        #expect(firebase["sign_in_provider"]?.stringValue == test.expected)
        #expect(firebase["identities"]?.objectValue.map { Set($0.keys) } == [test.expected])
        #expect(firebase["identities"]?[test.expected] == [.string(test.subject)])

        let lookup = await FirebaseClientAPITests.iOS(broker, "getAccountInfo", ["idToken": .string(idToken)])
        #expect(lookup.status == 200)
        let infos = try #require(lookup.json?["users"]?.arrayValue?.first?["providerUserInfo"]?.arrayValue)
        #expect(infos.map { $0["providerId"]?.stringValue } == [test.expected])
        #expect(infos.first?["rawId"]?.stringValue == test.subject)

        // A refresh keeps the session's name.
        let refreshToken = try #require(response.json?["refreshToken"]?.stringValue)
        let refreshed = await broker.firebase(
            "POST", FirebaseEndpoints.secureTokenPath + "?key=k",
            json: ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
        #expect(refreshed.status == 200)
        let next = try #require(refreshed.json?["id_token"]?.stringValue)
        #expect(JWKSVerification.decode(next)?.claims["firebase"]?["sign_in_provider"]?.stringValue == test.expected)
    }

    /// An ID token is never reached by a provider's own id: only an access token is (contract section 11).
    @Test func anIDTokenUnderAProvidersOwnIDNamesNoProviderAndStoresNothing() async throws {
        let broker = try await InProcessBroker.start()
        let token = try broker.stubs.idToken("kakao", claims: ["sub": "4100000019"])
        let response = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=kakao&id_token=\(token)")
        #expect(response.status == 400)
        #expect(FirebaseClientAPITests.code(response) == "INVALID_PROVIDER_ID")
        #expect(await broker.store.account(provider: ProviderID("kakao"), subject: "4100000019") == nil)
    }
}
