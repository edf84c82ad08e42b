/// What a sign-in, a sign-up or a guest's upgrade answered.
public struct SignInResult: Sendable, Equatable {
    /// The signed-in user (also ``BrokerAuth/currentUser`` now).
    public var user: BrokerUser
    /// Whether this sign-in created the account.
    public var isNewUser: Bool
    /// A Firebase custom token for `user.uid`, when the broker has a service account (for
    /// `Auth.auth().signIn(withCustomToken:)`); also ``BrokerAuth/customToken``.
    public var customToken: String?
}

/// A change of the session, as ``BrokerAuth/sessionChanges`` reports it.
public enum SessionChange: Sendable, Equatable {
    /// A sign-in, a sign-up or a guest started a session.
    case signedIn(BrokerUser)
    /// The session was refreshed: a new ID token, and the user as the broker knows it now.
    case refreshed(BrokerUser)
    /// The user changed within the same session: a profile edit, a link or unlink, a guest's upgrade.
    case userUpdated(BrokerUser)
    /// The app signed out, or deleted the account.
    case signedOut
    /// The broker ended the session (revoked, reused, expired, the account deleted or disabled elsewhere): the
    /// app shows its sign-in screen. The stored session is gone.
    case revoked
}

/// A second factor enrolled on the account, as an `MFA_REQUIRED` answer lists it (contract section 14).
public struct SecondFactor: Sendable, Equatable, Codable {
    /// The factor's id, for ``BrokerAuth/signIn(resolving:factorID:code:)``.
    public var factorID: String
    /// Its kind: `totp`.
    public var type: String
    /// The name the user gave it, if any.
    public var displayName: String?

    enum CodingKeys: String, CodingKey { case factorID = "factorId", type, displayName }
}

/// A first factor that succeeded on an account with a second factor: what the second step needs. It lasts 5
/// minutes and serves once.
public struct PendingSecondFactor: Sendable, Equatable {
    /// The broker's opaque `mfaPendingCredential`.
    public var credential: String
    /// The factors the user can answer with.
    public var factors: [SecondFactor]
}
