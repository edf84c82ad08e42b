/// What the hooks phase adds to a sign-in: claims this session's ID tokens carry, and changes to the account that
/// the commit applies in its own transaction, to the account as the transaction reads it (the session's grant
/// carries them: ``SessionGrant/amendment``), so this session's tokens carry them too.
public struct SignInAmendment: Sendable, Equatable {
    /// Claims for every ID token of the session (a JSON object's members), merged over the method's own.
    public var sessionClaims: [String: JSONValue]
    /// The account's custom claims (validated JSON object text), replacing its own; nil leaves them.
    public var customClaims: String?
    /// The account's display name; nil leaves it.
    public var displayName: String?
    /// The account's photo URL; nil leaves it.
    public var photoURL: String?
    /// Whether the account is disabled; nil leaves it. A sign-in that disables its account stores the account
    /// disabled, makes no session and is refused (`USER_DISABLED`).
    public var disabled: Bool?

    /// Creates an amendment; the empty one changes nothing.
    public init(
        sessionClaims: [String: JSONValue] = [:], customClaims: String? = nil, displayName: String? = nil,
        photoURL: String? = nil, disabled: Bool? = nil
    ) {
        self.sessionClaims = sessionClaims
        self.customClaims = customClaims
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
    }

    /// Whether it changes the account.
    public var changesAccount: Bool { customClaims != nil || displayName != nil || photoURL != nil || disabled != nil }

    /// `later` over this one: its session claims merged over these, each account field it sets replacing this one's.
    public func merging(_ later: SignInAmendment) -> SignInAmendment {
        SignInAmendment(
            sessionClaims: sessionClaims.merging(later.sessionClaims) { _, new in new },
            customClaims: later.customClaims ?? customClaims, displayName: later.displayName ?? displayName,
            photoURL: later.photoURL ?? photoURL, disabled: later.disabled ?? disabled)
    }

    /// Applies the account changes to `account`.
    public func apply(to account: inout Account) {
        if let customClaims { account.customClaims = customClaims }
        if let displayName { account.displayName = displayName }
        if let photoURL { account.photoURL = photoURL }
        if let disabled { account.disabled = disabled }
    }
}
