public import BrokerCore
import BrokerIdentity
public import BrokerModel
import Foundation

/// Firebase session cookies (`projects/{p}:createSessionCookie`), signed by the broker's keys.
///
/// A cookie is a JWT in Firebase's shape: the claims of the ID token it was made from, with `iss` =
/// ``FirebaseEndpoints/sessionCookieIssuerPrefix`` + the project id, `aud` = the project id, `iat` = the second
/// it was made and `exp` = `iat` + `validDuration` (300 seconds to 14 days, as Firebase bounds it). It is signed
/// with the broker's current key (`kid` in the header), so the broker's JWKS verifies it. The Admin SDKs in
/// emulator mode skip the signature and, with `check_revoked`, compare `iat` with the user's `validSince` and
/// check `disabled` (both from `accounts:lookup`).
public struct FirebaseSessionCookies: Sendable {
    /// The shortest `validDuration` Firebase accepts: five minutes.
    public static let minimumDuration = 300
    /// The longest `validDuration` Firebase accepts: fourteen days.
    public static let maximumDuration = 14 * 24 * 3600

    let keys: KeyRing
    let clock: any Clock
    let projectID: String

    /// Creates the minter for `projectID`'s cookies.
    public init(keys: KeyRing, clock: any Clock, projectID: String) {
        self.keys = keys
        self.clock = clock
        self.projectID = projectID
    }

    /// `iss` of the project's cookies.
    public static func issuer(projectID: String) -> String { FirebaseEndpoints.sessionCookieIssuerPrefix + projectID }

    /// A cookie carrying `idTokenClaims` (already verified by the caller) for `validDuration` seconds;
    /// ``SessionCookieError/Code/invalidDuration`` outside 300 seconds to 14 days.
    public func mint(idTokenClaims: [String: JSONValue], validDuration: Int) async throws -> String {
        guard (Self.minimumDuration...Self.maximumDuration).contains(validDuration) else {
            throw SessionCookieError(.invalidDuration, "validDuration \(validDuration)")
        }
        let issuedAt = Int64(clock.now.timeIntervalSince1970)
        var claims = idTokenClaims
        claims["iss"] = .string(Self.issuer(projectID: projectID))
        claims["aud"] = .string(projectID)
        claims["iat"] = .int(issuedAt)
        claims["exp"] = .int(issuedAt + Int64(validDuration))
        let key = try await keys.current()
        let header: [String: JSONValue] = [
            "alg": .string(key.algorithm.rawValue), "kid": .string(key.id.rawValue), "typ": "JWT",
        ]
        return try JWT.encode(header: header, claims: claims, sign: key.sign)
    }

    /// The claims of a cookie this broker minted for its project, checked for signature (the key its `kid`
    /// names, with that key's algorithm), issuer, audience, a 1-128 character `sub` and expiry; anything else
    /// is ``SessionCookieError/Code/invalidCookie``. Revocation is the caller's to check (`iat` against the
    /// account's `validSince`).
    public func verify(_ cookie: String) async throws -> [String: JSONValue] {
        guard cookie.utf8.count <= 16 * 1024, let jwt = try? JWT(parsing: cookie),
            let kid = jwt.keyID,
            let key = await keys.key(id: kid), jwt.header["alg"]?.stringValue == key.algorithm.rawValue,
            key.verify(signature: jwt.signature, message: jwt.signingInput)
        else { throw SessionCookieError(.invalidCookie, "signature") }
        guard jwt.claims["iss"]?.stringValue == Self.issuer(projectID: projectID),
            jwt.claims["aud"]?.stringValue == projectID,
            let subject = jwt.claims["sub"]?.stringValue, (1...128).contains(subject.utf8.count)
        else { throw SessionCookieError(.invalidCookie, "claims") }
        guard let expiry = jwt.claims["exp"]?.doubleValue, expiry > clock.now.timeIntervalSince1970 else {
            throw SessionCookieError(.invalidCookie, "expired")
        }
        return jwt.claims
    }
}
