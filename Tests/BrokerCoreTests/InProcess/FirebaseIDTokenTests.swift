import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Firebase-shaped ID tokens (contract section 11) minted for the Firebase listener's sessions, their
/// verification on calls that take an `idToken`, and sessions that work only on the listener they began on.
@Suite struct FirebaseIDTokenTests {
    static func start() async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date())
        return (try await InProcessBroker.start(clock: clock), clock)
    }

    static func signUp(_ broker: InProcessBroker, _ email: String = "fb@example.com") async throws -> SignInResult {
        try await broker.services.signIn.signUp(
            email: email, password: "secret-password", displayName: "Fi Re", requestID: "test", surface: .firebase)
    }

    static func verifier(_ broker: InProcessBroker) -> FirebaseIDTokenVerifier {
        FirebaseIDTokenVerifier(services: broker.services)
    }

    static func refused(_ broker: InProcessBroker, _ token: String) async -> String? {
        do {
            _ = try await verifier(broker).verify(token)
            return nil
        } catch let error as FirebaseError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test func aPasswordSessionsTokenHasFirebasesShape() async throws {
        let (broker, clock) = try await Self.start()
        let result = try await Self.signUp(broker)
        let project = broker.services.config.projectID
        let claims = try #require(JWKSVerification.decode(result.tokens.idToken)?.claims)
        let uid = result.account.id.rawValue
        #expect(claims["iss"]?.stringValue == FirebaseEndpoints.secureTokenIssuerPrefix + project)
        #expect(claims["aud"]?.stringValue == project)
        #expect(claims["sub"]?.stringValue == uid)
        #expect(claims["user_id"]?.stringValue == uid)
        #expect(claims["email"]?.stringValue == "fb@example.com")
        #expect(claims["email_verified"]?.boolValue == false)
        #expect(claims["name"]?.stringValue == "Fi Re")
        let now = Int64(clock.now.timeIntervalSince1970)
        #expect(claims["iat"]?.intValue == now)
        #expect(claims["exp"]?.intValue == now + Int64(broker.services.config.idTokenTTL))
        #expect(claims["auth_time"]?.intValue != nil)
        #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "password")
        #expect(claims["firebase"]?["identities"] == ["email": ["fb@example.com"]])
        // Signed by the broker's published keys.
        let keys = await broker.services.keys.published().map(\.id.rawValue)
        #expect(keys.contains(JWKSVerification.decode(result.tokens.idToken)?.header["kid"]?.stringValue ?? ""))

        let user = try await Self.verifier(broker).verify(result.tokens.idToken)
        #expect(user.account.id == result.account.id)
        #expect(user.signInProvider == "password")
    }

    @Test func aProviderSessionNamesFirebasesProviderIDAndCustomClaimsAreTopLevel() async throws {
        let (broker, _) = try await Self.start()
        let token = try broker.stubs.idToken("google", claims: ["sub": "g-123", "email": "g@example.com", "email_verified": true])
        let result = try await broker.services.signIn.signIn(
            SignInRequest(
                provider: ProviderID("google"), credential: .idToken(token, rawNonce: nil), requestID: "t", surface: .firebase))
        _ = try await broker.store.update(id: result.account.id) { $0.customClaims = #"{"role":"admin","iss":"nope"}"# }
        let (_, refreshed) = try await broker.services.sessions.refresh(result.tokens.refreshToken, surface: .firebase)
        for idToken in [result.tokens.idToken, refreshed.idToken] {
            let claims = try #require(JWKSVerification.decode(idToken)?.claims)
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "google.com")
            #expect(claims["firebase"]?["identities"]?["google.com"] == ["g-123"])
            #expect(claims["email_verified"]?.boolValue == true)
        }
        let claims = try #require(JWKSVerification.decode(refreshed.idToken)?.claims)
        #expect(claims["role"]?.stringValue == "admin")
        // A custom claim never overrides a reserved one.
        #expect(claims["iss"]?.stringValue?.hasPrefix(FirebaseEndpoints.secureTokenIssuerPrefix) == true)
    }

    @Test func refusedTokensGetFirebasesCodes() async throws {
        let (broker, clock) = try await Self.start()
        let result = try await Self.signUp(broker)
        let good = result.tokens.idToken
        #expect(await Self.refused(broker, "not-a-jwt") == "INVALID_ID_TOKEN")
        #expect(await Self.refused(broker, "") == "INVALID_ID_TOKEN")

        // The same claims signed by another key under the broker's kid: a forgery.
        let (header, claims) = try #require(JWKSVerification.decode(good))
        let other = try SigningKey(stored: SigningKey.generate(.es256, at: clock.now))
        let forged = try JWT.encode(header: header, claims: claims, sign: other.sign)
        #expect(await Self.refused(broker, forged) == "INVALID_ID_TOKEN")
        // A native ID token of the same broker is not a Firebase one.
        let native = try await broker.services.signIn.signIn(
            email: "fb@example.com", password: "secret-password", requestID: "t")
        #expect(await Self.refused(broker, native.tokens.idToken) == "INVALID_ID_TOKEN")
        #expect(await Self.refused(broker, good) == nil)

        clock.advance(by: broker.services.config.idTokenTTL + 1)
        #expect(await Self.refused(broker, good) == "TOKEN_EXPIRED")
    }

    @Test func aRevokedSessionADisabledAndADeletedAccountAreRefused() async throws {
        let (broker, _) = try await Self.start()
        let first = try await Self.signUp(broker)
        let second = try await broker.services.signIn.signIn(
            email: "fb@example.com", password: "secret-password", requestID: "t", surface: .firebase)
        try await broker.services.sessions.signOut(first.tokens.refreshToken, surface: .firebase)
        // Exact revocation: the ended session's token is refused, the other session's (same second) is not.
        #expect(await Self.refused(broker, first.tokens.idToken) == "TOKEN_EXPIRED")
        #expect(await Self.refused(broker, second.tokens.idToken) == nil)

        _ = try await broker.store.update(id: first.account.id) { $0.disabled = true }
        #expect(await Self.refused(broker, second.tokens.idToken) == "USER_DISABLED")
        _ = try await broker.store.update(id: first.account.id) { $0.disabled = false }
        #expect(await Self.refused(broker, second.tokens.idToken) == nil)

        try await broker.store.delete(id: first.account.id)
        #expect(await Self.refused(broker, second.tokens.idToken) == "USER_NOT_FOUND")
    }

    @Test func sessionsWorkOnlyOnTheListenerTheyBeganOn() async throws {
        let (broker, _) = try await Self.start()
        let firebase = try await Self.signUp(broker)
        // The native refresh refuses the Firebase session's token, and leaves the session alone.
        let native = await broker.post("/v1/token", ["refreshToken": .string(firebase.tokens.refreshToken)])
        #expect(native.status == 401)
        #expect(native.errorCode == "INVALID_REFRESH_TOKEN")
        let (_, rotated) = try await broker.services.sessions.refresh(firebase.tokens.refreshToken, surface: .firebase)
        #expect(JWKSVerification.decode(rotated.idToken)?.claims["user_id"]?.stringValue == firebase.account.id.rawValue)
        let record = try #require(await broker.store.refreshToken(hash: Hex.encode(Digest.sha256(rotated.refreshToken))))
        #expect(record.surface == .firebase)
        #expect(record.signInProvider == "password")

        // The Firebase refresh refuses a native session's token.
        let signIn = await broker.post("/v1/signin/password", ["email": "fb@example.com", "password": "secret-password"])
        let nativeRefresh = try #require(signIn.json?["refreshToken"]?.stringValue)
        await #expect(performing: {
            _ = try await broker.services.sessions.refresh(nativeRefresh, surface: .firebase)
        }, throws: { ($0 as? SessionError)?.code == .invalidRefreshToken })
        #expect(await broker.post("/v1/token", ["refreshToken": .string(nativeRefresh)]).status == 200)
        // Nor does the native sign-out end a Firebase session.
        #expect(await broker.post("/v1/signout", ["refreshToken": .string(rotated.refreshToken)]).status == 204)
        let (_, again) = try await broker.services.sessions.refresh(rotated.refreshToken, surface: .firebase)
        #expect(!again.idToken.isEmpty)
    }

    @Test func anAccountAsFirebasesUserInfo() async throws {
        let (broker, _) = try await Self.start()
        let result = try await Self.signUp(broker)
        let token = try broker.stubs.idToken("google", claims: ["sub": "g-9", "email": "other@example.com"])
        let user = SignedInUser(account: result.account, claims: try JWT(parsing: result.tokens.idToken).claims)
        let linked = try await broker.services.signIn.link(
            user, SignInRequest(provider: ProviderID("google"), credential: .idToken(token, rawNonce: nil), requestID: "t"))
        let info = FirebaseUserInfo(linked, providers: broker.services.providers).json(.client)
        #expect(info["localId"]?.stringValue == linked.id.rawValue)
        #expect(info["email"]?.stringValue == "fb@example.com")
        #expect(info["emailVerified"]?.boolValue == false)
        #expect(info["displayName"]?.stringValue == "Fi Re")
        #expect(info["disabled"]?.boolValue == false)
        #expect(info["createdAt"]?.stringValue == FirebaseUserInfo.millisString(linked.createdAt))
        #expect(info["lastLoginAt"]?.stringValue != nil)
        #expect(info["lastRefreshAt"]?.stringValue?.hasSuffix("Z") == true)
        #expect(info["validSince"]?.stringValue.flatMap { Int64($0) } != nil)
        #expect(info["passwordHash"]?.stringValue == "UkVEQUNURUQ=")
        let providers = try #require(info["providerUserInfo"]?.arrayValue)
        #expect(providers.compactMap { $0["providerId"]?.stringValue } == ["password", "google.com"])
        #expect(providers.last?["rawId"]?.stringValue == "g-9")
        #expect(providers.last?["federatedId"]?.stringValue == "g-9")
        #expect(providers.first?["rawId"]?.stringValue == "fb@example.com")
        // The real hash never shows.
        #expect(!info.serialized().isEmpty)
        #expect(!String(decoding: info.serialized(), as: UTF8.self).contains(linked.password?.hash ?? "-"))
    }
}
