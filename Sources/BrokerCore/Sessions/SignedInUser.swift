public import BrokerModel
public import Foundation

/// The user a verified ID token names, asking for something with it: the live account and the token's claims.
/// A change it asks for is checked against its session (a sensitive one needs a recent sign-in, contract section
/// 4), and a renewal of its session keeps the session's sign-in time: only a sign-in makes a session recent.
public struct SignedInUser: Sendable {
    /// The account, as read when the token was checked.
    public var account: Account
    /// The ID token's claims (`auth_time`, `sign_in_provider`).
    public var claims: [String: JSONValue]

    /// Creates a signed-in user.
    public init(account: Account, claims: [String: JSONValue]) {
        self.account = account
        self.claims = claims
    }

    /// The session's sign-in time (`auth_time`), which a renewal that continues the session keeps.
    public var authTime: Date? { SessionService.authTime(of: claims) }

    /// ``authTime``, for a renewal of this session: a verified token without one (the broker mints none) is
    /// `UNAUTHENTICATED`, never renewed as a sign-in made now.
    public func sessionAuthTime() throws -> Date {
        guard let authTime else { throw SessionError(.unauthenticated, "the ID token has no auth_time") }
        return authTime
    }
}
