import BrokerCore
import BrokerCrypto
import BrokerIdentity
public import BrokerModel
public import Foundation

/// Mints Firebase custom tokens an app passes to `Auth.auth().signIn(withCustomToken:)`.
///
/// RS256 with the service account's key; header `kid` = `private_key_id`; `iss` = `sub` = `client_email`;
/// `aud` = the Identity Toolkit audience; `exp` = `iat` + the configured lifetime (at most an hour); `uid`;
/// optional `claims`. The lifetime bounds what a revocation leaves: a custom token minted before it and not yet
/// exchanged still signs in to Firebase until it expires.
public struct FirebaseCustomTokenMinter: Sendable {
    /// The audience Firebase requires.
    public static let audience = FirebaseEndpoints.customTokenAudience
    /// The longest lifetime Firebase accepts.
    public static let lifetime: TimeInterval = 3600

    private let account: FirebaseServiceAccount
    private let clock: any Clock
    private let ttl: TimeInterval

    /// Creates a minter whose tokens last `ttl` seconds (clamped to 1 to 3600).
    public init(account: FirebaseServiceAccount, clock: any Clock, ttl: TimeInterval = FirebaseCustomTokenMinter.lifetime) {
        self.account = account
        self.clock = clock
        self.ttl = min(FirebaseCustomTokenMinter.lifetime, max(1, ttl))
    }

    /// A custom token for `uid` (1-128 characters) with optional developer claims.
    public func mint(uid: AccountID, claims: [String: JSONValue]? = nil) throws -> String {
        guard (1...128).contains(uid.rawValue.count) else {
            throw TokenError(.malformed, "uid must be 1-128 characters")
        }
        let issuedAt = Int64(clock.now.timeIntervalSince1970)
        var payload: [String: JSONValue] = [
            "iss": .string(account.clientEmail), "sub": .string(account.clientEmail),
            "aud": .string(FirebaseCustomTokenMinter.audience), "iat": .int(issuedAt),
            "exp": .int(issuedAt + Int64(ttl)), "uid": .string(uid.rawValue),
        ]
        if let claims, !claims.isEmpty { payload["claims"] = .object(claims) }
        let header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID.rawValue)]
        return try JWT.encode(header: header, claims: payload, sign: account.privateKey.signSHA256)
    }
}
