/// A sign-in waiting for its second factor: the opaque, single-use credential that finishes it and the factors
/// that may (contract section 14).
public struct PendingSecondFactor: Sendable, Equatable {
    /// The account the sign-in reaches.
    public var uid: AccountID
    /// The opaque credential `POST /v1/signin/mfa` takes.
    public var credential: String
    /// The factors that can finish it: id, type and display name.
    public var factors: [Factor]

    /// A factor that can finish a pending sign-in.
    public struct Factor: Sendable, Equatable {
        /// The factor's id.
        public var id: String
        /// Its type (`totp`).
        public var type: String
        /// The name its owner gave it.
        public var displayName: String?

        /// Creates a factor's description.
        public init(id: String, type: String, displayName: String?) {
            self.id = id
            self.type = type
            self.displayName = displayName
        }
    }

    /// Creates a pending sign-in.
    public init(uid: AccountID, credential: String, factors: [Factor]) {
        self.uid = uid
        self.credential = credential
        self.factors = factors
    }
}
