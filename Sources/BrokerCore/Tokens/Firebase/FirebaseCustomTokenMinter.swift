import Foundation

/// Mints Firebase custom tokens an app passes to `Auth.auth().signIn(withCustomToken:)`.
///
/// RS256 with the service account's key; header `kid` = `private_key_id`; `iss` = `sub` = `client_email`;
/// `aud` = the Identity Toolkit audience; `exp` = `iat` + 1 hour; `uid`; optional `claims`.
public struct FirebaseCustomTokenMinter: Sendable {
    /// The audience Firebase requires.
    public static let audience = FirebaseEndpoints.customTokenAudience
    /// The longest lifetime Firebase accepts.
    public static let lifetime: TimeInterval = 3600

    private let account: FirebaseServiceAccount
    private let clock: any Clock

    /// Creates a minter.
    public init(account: FirebaseServiceAccount, clock: any Clock) {
        self.account = account
        self.clock = clock
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
            "exp": .int(issuedAt + Int64(FirebaseCustomTokenMinter.lifetime)), "uid": .string(uid.rawValue),
        ]
        if let claims, !claims.isEmpty { payload["claims"] = .object(claims) }
        let header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID)]
        return try JWT.encode(header: header, claims: payload, sign: account.privateKey.signSHA256)
    }
}
