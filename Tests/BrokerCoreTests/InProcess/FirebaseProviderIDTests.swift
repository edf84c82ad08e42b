import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Firebase id of an identity (contract section 11; docs/firebase.md, "Provider ids"): the id Firebase gives
/// the provider, else `oidc.<id>` for an identity an ID token linked and `<id>` for one an access token linked. For
/// every built-in provider and every credential kind it accepts, a sign-in on the Firebase listener names the
/// identity it reached the same way in `signInWithIdp`'s `providerId`, the ID token's `firebase.sign_in_provider` and
/// `firebase.identities`, a refreshed ID token, and `getAccountInfo`'s `providerUserInfo[].providerId`; the store
/// keeps the kind that linked it.
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
        Case(provider: "kakao", kind: .accessToken, sent: "kakao", expected: "kakao", subject: "4100000012"),
        Case(provider: "naver", kind: .accessToken, sent: "naver", expected: "naver", subject: "n-1"),
        Case(
            provider: "line", kind: .idToken, sent: "oidc.line", expected: "oidc.line",
            subject: "U00000000000000000000000000000001"),
        Case(
            provider: "line", kind: .accessToken, sent: "line", expected: "line",
            subject: "U00000000000000000000000000000002"),
        Case(
            provider: StubProviders.oidcProviderID, kind: .idToken, sent: "oidc.corp", expected: "oidc.corp",
            subject: "corp-1"),
    ]

    /// Names `signInWithIdp` refuses: a credential under a name its identity would not have.
    static let refusedNames: [Case] = [
        Case(provider: "kakao", kind: .idToken, sent: "kakao", expected: "", subject: "4100000019"),
        Case(provider: "kakao", kind: .accessToken, sent: "oidc.kakao", expected: "", subject: "4100000018"),
        Case(provider: "naver", kind: .accessToken, sent: "oidc.naver", expected: "", subject: "n-9"),
        Case(
            provider: "line", kind: .accessToken, sent: "oidc.line", expected: "",
            subject: "U00000000000000000000000000000009"),
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
            for kind in provider.credentialKinds { expected.insert("\(provider.id.rawValue) \(kind.rawValue)") }
        }
        #expect(Set(Self.cases.map { "\($0.provider) \($0.kind.rawValue)" }) == expected)
    }

    /// A provider refuses the kinds of credential it does not declare (``IdentityProvider/credentialKinds``) before
    /// asking anyone, so what it declares is all it takes.
    @Test func aProviderRefusesTheKindsItDoesNotDeclare() async throws {
        let broker = try await InProcessBroker.start()
        var refused = 0
        for provider in broker.services.providers.all {
            #expect(!provider.credentialKinds.isEmpty)
            for kind in [CredentialKind.idToken, .accessToken] where !provider.credentialKinds.contains(kind) {
                let credential: Credential = kind == .idToken ? .idToken("x.y.z", rawNonce: nil) : .accessToken("x")
                let error = await #expect(throws: ProviderError.self) {
                    try await provider.verify(credential, hints: CredentialHints())
                }
                #expect(error?.code == .invalidRequest && error?.detail.contains("does not accept") == true)
                refused += 1
            }
        }
        #expect(refused >= 4)  // Google, Apple and the OIDC entries take no access token, Naver no ID token
    }

    @Test(arguments: cases)
    func everyAnswerNamesTheIdentityByTheKindThatLinkedIt(_ test: Case) async throws {
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
        #expect(stored.identity(ProviderID(test.provider))?.kind == test.kind)
        let idToken = try #require(response.json?["idToken"]?.stringValue)
        try await Self.expectNames(broker, idToken: idToken, refreshToken: response.json?["refreshToken"], test)
    }

    /// The ID token's names, `getAccountInfo`'s, and a refreshed ID token's, all `test.expected`.
    static func expectNames(
        _ broker: InProcessBroker, idToken: String, refreshToken: JSONValue?, _ test: Case
    ) async throws {
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
        let refreshed = await broker.firebase(
            "POST", FirebaseEndpoints.secureTokenPath + "?key=k",
            json: ["grant_type": "refresh_token", "refresh_token": try #require(refreshToken)])
        #expect(refreshed.status == 200)
        let next = try #require(refreshed.json?["id_token"]?.stringValue)
        #expect(JWKSVerification.decode(next)?.claims["firebase"]?["sign_in_provider"]?.stringValue == test.expected)
    }

    /// One identity, one name: an identity an ID token linked keeps `oidc.<id>` when an access token signs in to it,
    /// and its stored kind.
    @Test(arguments: ["kakao", "line"])
    func anIdentityLinkedByAnIDTokenKeepsItsNameAfterAnAccessToken(_ provider: String) async throws {
        let broker = try await InProcessBroker.start()
        let subject = provider == "kakao" ? "4100000021" : "U00000000000000000000000000000021"
        let first = Case(provider: provider, kind: .idToken, sent: "oidc.\(provider)", expected: "", subject: subject)
        let created = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: try Self.postBody(first, stubs: broker.stubs))
        #expect(created.status == 200)
        let uid = try #require(created.json?["localId"]?.stringValue)

        let again = Case(
            provider: provider, kind: .accessToken, sent: provider, expected: "oidc.\(provider)", subject: subject)
        let response = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: try Self.postBody(again, stubs: broker.stubs))
        #expect(response.status == 200)
        #expect(response.json?["localId"]?.stringValue == uid)
        #expect(response.json?["isNewUser"] == false)
        #expect(response.json?["providerId"]?.stringValue == "oidc.\(provider)")
        let stored = try #require(await broker.store.account(id: AccountID(uid)))
        #expect(stored.identities.map(\.kind) == [.idToken])
        let idToken = try #require(response.json?["idToken"]?.stringValue)
        try await Self.expectNames(broker, idToken: idToken, refreshToken: response.json?["refreshToken"], again)
    }

    /// A legacy identity (stored before its kind was): `<id>` for a provider of access tokens only, else
    /// `oidc.<id>`, as lookup named it before; a sign-in leaves its kind unknown.
    @Test(arguments: [("kakao", "oidc.kakao", "4100000031"), ("naver", "naver", "n-31")])
    func aLegacyIdentityIsNamedByWhatTheProviderTakes(
        _ provider: String, _ expected: String, _ subject: String
    )
        async throws
    {
        let broker = try await InProcessBroker.start()
        let uid = AccountID("legacy-\(provider)")
        try await broker.store.create(
            Account(
                id: uid, createdAt: Date(),
                identities: [Identity(provider: ProviderID(provider), subject: subject, email: nil, linkedAt: Date())]))
        let test = Case(provider: provider, kind: .accessToken, sent: provider, expected: expected, subject: subject)
        let response = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: try Self.postBody(test, stubs: broker.stubs))
        #expect(response.status == 200)
        #expect(response.json?["localId"]?.stringValue == uid.rawValue)
        #expect(response.json?["providerId"]?.stringValue == expected)
        let kinds: [CredentialKind?] = try #require(await broker.store.account(id: uid)).identities.map(\.kind)
        #expect(kinds == [nil])
        let idToken = try #require(response.json?["idToken"]?.stringValue)
        try await Self.expectNames(broker, idToken: idToken, refreshToken: response.json?["refreshToken"], test)
    }

    /// The listener's link (`signInWithIdp` with `idToken`) stores the kind of the credential that linked, and
    /// answers the linked identity's name.
    @Test(arguments: [CredentialKind.idToken, .accessToken])
    func aLinkOnTheListenerStoresTheCredentialsKind(_ kind: CredentialKind) async throws {
        let broker = try await InProcessBroker.start()
        let signedUp = await FirebaseClientAPITests.signUp(broker, "link-\(kind.rawValue)@example.com")
        #expect(signedUp.status == 200)
        let uid = try #require(signedUp.json?["localId"]?.stringValue)
        let test = Case(
            provider: "kakao", kind: kind, sent: kind == .idToken ? "oidc.kakao" : "kakao",
            expected: kind == .idToken ? "oidc.kakao" : "kakao",
            subject: kind == .idToken ? "4100000041" : "4100000042")
        let response = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: try Self.postBody(test, stubs: broker.stubs),
            idToken: signedUp.json?["idToken"]?.stringValue)
        #expect(response.status == 200)
        #expect(response.json?["localId"]?.stringValue == uid)
        #expect(response.json?["providerId"]?.stringValue == test.expected)
        let stored = try #require(await broker.store.account(id: AccountID(uid)))
        #expect(stored.identity(ProviderID("kakao"))?.kind == kind)
        let idToken = try #require(response.json?["idToken"]?.stringValue)
        let firebase = try #require(JWKSVerification.decode(idToken)?.claims["firebase"])
        #expect(firebase["identities"]?[test.expected] == [.string(test.subject)])
    }

    /// An import reads the kind from the provider id (`oidc.<id>`: an ID token, `<id>`: an access token; Firebase's
    /// own name for a provider does not say), and the broker's export writes it, so that an import gives it back.
    @Test func anImportReadsTheKindFromTheProviderIDAndTheExportKeepsIt() async throws {
        let broker = try await InProcessBroker.start()
        let options = try FirebaseImportOptions(hash: nil, providers: broker.services.providers.firebaseNames)
        let record = FirebaseUserRecord(
            localId: "imported",
            providerUserInfo: [
                FirebaseProviderUserInfo(providerId: "oidc.kakao", rawId: "4100000051"),
                FirebaseProviderUserInfo(providerId: "naver", rawId: "n-51"),
                FirebaseProviderUserInfo(providerId: "google.com", rawId: "g-51"),
            ])
        let plan = try FirebaseImportPlan(record, options: options, importedAt: Date())
        let kinds: [String: CredentialKind?] = Dictionary(
            uniqueKeysWithValues: plan.account.identities.map { ($0.provider.rawValue, $0.kind) })
        let expected: [String: CredentialKind?] = ["kakao": .idToken, "naver": .accessToken, "google": .none]
        #expect(kinds == expected)

        var report = FirebaseExporter.Report()
        let exported = FirebaseExporter(
            store: AccountTransfer(store: broker.store), providers: broker.services.providers
        )
        .userJSON(plan.account, report: &report)
        let decoded = try FirebaseUserRecord(json: exported)
        let again = try FirebaseImportPlan(decoded, options: options, importedAt: Date())
        #expect(again.account.identities.map(\.kind) == plan.account.identities.map(\.kind))
        let names = exported["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
        #expect(Set(names ?? []) == ["oidc.kakao", "naver", "google.com"])
    }

    /// A credential is never reached under a name its identity would not have (contract section 11): an ID token
    /// under a provider's own id, an access token under `oidc.<id>`.
    @Test(arguments: refusedNames)
    func aCredentialUnderAnotherNameNamesNoProviderAndStoresNothing(_ test: Case) async throws {
        let broker = try await InProcessBroker.start()
        let response = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: try Self.postBody(test, stubs: broker.stubs))
        #expect(response.status == 400)
        #expect(FirebaseClientAPITests.code(response) == "INVALID_PROVIDER_ID")
        #expect(await broker.store.account(provider: ProviderID(test.provider), subject: test.subject) == nil)
    }
}
