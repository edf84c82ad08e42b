import BrokerCrypto
public import Foundation

/// A new session (refresh token) to store with an account change, so a sign-in and its session commit together
/// (or not at all).
public struct SessionGrant: Sendable, Equatable {
    /// SHA-256 hex of the opaque refresh token.
    public var tokenHash: String
    /// The new session's id.
    public var sessionID: String
    /// The provider of the sign-in.
    public var signInProvider: String
    /// When the token was issued.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// The listener the session is made on (it works only there).
    public var surface: SessionSurface
    /// Claims the session's ID tokens carry besides the account's (JSON object text), if any.
    public var claims: String?
    /// When the session's sign-in happened (its ID tokens' `auth_time`): `createdAt` for a new sign-in, the
    /// earlier session's for a renewal that continues it.
    public var authTime: Date
    /// What the sign-in's hooks change on the account, applied by the store in the transaction that stores this
    /// session, to the account as that transaction reads it (``AccountWriteOptions/amending(_:)``); nil for none.
    public var amendment: SignInAmendment?

    /// Creates a grant; `authTime` defaults to `createdAt`.
    public init(
        tokenHash: String, sessionID: String, signInProvider: String, createdAt: Date, expiresAt: Date,
        surface: SessionSurface = .native, claims: String? = nil, authTime: Date? = nil
    ) {
        self.surface = surface
        self.claims = claims
        self.authTime = authTime ?? createdAt
        self.tokenHash = tokenHash
        self.sessionID = sessionID
        self.signInProvider = signInProvider
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

extension SessionGrant {
    /// A new session id: the creation time in epoch milliseconds, 15 digits, then 16 random bytes in
    /// base64url. Ids made later sort later, so the session index of a SQL store grows at its end instead of
    /// touching a random page on every sign-in. The id is never shown to clients; the refresh token is the
    /// secret.
    public static func newSessionID(at date: Date) -> String {
        let millis = String(max(0, Int64((date.timeIntervalSince1970 * 1000).rounded())))
        let padded = String(repeating: "0", count: max(0, 15 - millis.count)) + millis
        return padded + "-" + Base64URL.encode(SecureRandom.bytes(16))
    }

    /// The creation time a session id of ``newSessionID(at:)``'s form begins with; nil for another form.
    public static func creationTime(ofSessionID id: String) -> Date? {
        let utf8 = Array(id.utf8.prefix(16))
        guard utf8.count == 16, utf8[15] == UInt8(ascii: "-"), utf8[..<15].allSatisfy({ (48...57).contains($0) }),
            let millis = Int64(String(decoding: utf8[..<15], as: UTF8.self))
        else { return nil }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
