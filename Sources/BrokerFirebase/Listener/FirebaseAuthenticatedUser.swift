public import BrokerCore
public import BrokerModel
/// A Firebase-shaped ID token the broker verified, with its live account.
public struct FirebaseAuthenticatedUser: Sendable {
    /// The account (`sub` = `user_id`).
    public var account: Account
    /// The session the token names (`sid`).
    public var sessionID: String
    /// The token's claims.
    public var claims: [String: JSONValue]
    /// `firebase.sign_in_provider`.
    public var signInProvider: String?

    /// The user asking, as the core's services take it.
    public var signedIn: SignedInUser { SignedInUser(account: account, claims: claims) }
}
