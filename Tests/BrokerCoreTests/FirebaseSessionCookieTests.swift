import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Firebase session cookies: Firebase's bounds and shape, signed by the broker's keys.
@Suite struct FirebaseSessionCookieTests {
    static func make() async throws -> (FirebaseSessionCookies, ManualClock, KeyRing) {
        let clock = ManualClock()
        let store = MemoryBrokerStore(clock: clock)
        let keys = KeyRing(store: store, clock: clock, algorithm: .es256, tokenLifetime: 3600)
        try await keys.load()
        return (FirebaseSessionCookies(keys: keys, clock: clock, projectID: "demo-project"), clock, keys)
    }

    static let idTokenClaims: [String: JSONValue] = [
        "iss": "https://securetoken.google.com/demo-project", "aud": "demo-project", "sub": "uid-1", "user_id": "uid-1",
        "iat": .int(1_799_999_000), "exp": .int(1_800_002_600), "auth_time": .int(1_799_999_000),
        "email": "a@example.com", "email_verified": true,
        "firebase": ["sign_in_provider": "password", "identities": [:]],
        "role": "admin",
    ]

    @Test(arguments: [299, 1_209_601, 0, -1, Int.max])
    func aDurationOutsideFiveMinutesToFourteenDaysIsRefused(seconds: Int) async throws {
        let (cookies, _, _) = try await Self.make()
        await #expect(throws: SessionCookieError(.invalidDuration, "validDuration \(seconds)")) {
            _ = try await cookies.mint(idTokenClaims: Self.idTokenClaims, validDuration: seconds)
        }
    }

    @Test(arguments: [300, 3600, 1_209_600])
    func aCookieHasFirebasesShapeAndTheIDTokensClaims(seconds: Int) async throws {
        let (cookies, clock, keys) = try await Self.make()
        let cookie = try await cookies.mint(idTokenClaims: Self.idTokenClaims, validDuration: seconds)
        let jwt = try JWT(parsing: cookie)
        let now = Int64(clock.now.timeIntervalSince1970)
        #expect(jwt.claims["iss"]?.stringValue == "https://session.firebase.google.com/demo-project")
        #expect(jwt.claims["aud"]?.stringValue == "demo-project")
        #expect(jwt.claims["iat"] == .int(now))
        #expect(jwt.claims["exp"] == .int(now + Int64(seconds)))
        for name in ["sub", "user_id", "auth_time", "email", "email_verified", "firebase", "role"] {
            #expect(jwt.claims[name] == Self.idTokenClaims[name], "claim \(name)")
        }
        #expect(jwt.keyID == (try await keys.current().id))
        let verified = try await cookies.verify(cookie)
        #expect(verified["sub"]?.stringValue == "uid-1")
    }

    @Test func aTamperedExpiredOrForeignCookieIsRefused() async throws {
        let (cookies, clock, keys) = try await Self.make()
        let cookie = try await cookies.mint(idTokenClaims: Self.idTokenClaims, validDuration: 300)
        let parts = cookie.split(separator: ".").map(String.init)
        var claims = try JWT(parsing: cookie).claims
        claims["sub"] = "someone-else"
        let tampered = parts[0] + "." + Base64URL.encode(JSONValue.object(claims).serialized()) + "." + parts[2]
        let foreign = try await FirebaseSessionCookies(keys: keys, clock: clock, projectID: "other-project")
            .mint(idTokenClaims: Self.idTokenClaims, validDuration: 300)
        let idTokenShaped =
            parts[0] + "." + Base64URL.encode(JSONValue.object(Self.idTokenClaims).serialized()) + "." + parts[2]
        for bad in [tampered, foreign, idTokenShaped, "", "a.b.c"] {
            await #expect(throws: SessionCookieError.self) { _ = try await cookies.verify(bad) }
        }
        clock.advance(by: 300)
        await #expect(throws: SessionCookieError(.invalidCookie, "expired")) { _ = try await cookies.verify(cookie) }
    }
}
