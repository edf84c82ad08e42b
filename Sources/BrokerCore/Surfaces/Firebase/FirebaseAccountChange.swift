import Foundation

/// A change Firebase's admin `accounts:update` asks of an account: nil leaves a field alone, `.some(nil)` removes
/// it (Firebase's `deleteAttribute`, and `deleteProvider` `phone`).
public struct FirebaseAccountChange: Sendable, Equatable {
    /// A new email (`.some(nil)`: removed, with the password, as `deleteProvider` `password` does).
    public var email: String??
    /// Whether the email is verified.
    public var emailVerified: Bool?
    /// A new password, in clear: hashed by the broker's hasher, never stored or logged as given.
    public var password: String?
    /// A new display name (`.some(nil)`: `deleteAttribute` `DISPLAY_NAME`).
    public var displayName: String??
    /// A new photo URL (`.some(nil)`: `deleteAttribute` `PHOTO_URL`).
    public var photoURL: String??
    /// A new phone number (`.some(nil)`: `deleteProvider` `phone`).
    public var phoneNumber: String??
    /// `disableUser`.
    public var disabled: Bool?
    /// `customAttributes`: the JSON text of an object (`{}` clears them).
    public var customAttributes: String?
    /// The broker's providers whose identities `deleteProvider` unlinks.
    public var unlinking: [ProviderID]
    /// `deleteProvider` `password`: the password and the email go.
    public var removesPassword: Bool
    /// `validSince`, whole epoch seconds: ID tokens issued before it stop working, and the account's sessions
    /// are revoked (the broker's and, with a service account, Firebase's).
    public var validSince: Int64?

    /// Creates a change.
    public init(
        email: String?? = nil, emailVerified: Bool? = nil, password: String? = nil, displayName: String?? = nil,
        photoURL: String?? = nil, phoneNumber: String?? = nil, disabled: Bool? = nil, customAttributes: String? = nil,
        unlinking: [ProviderID] = [], removesPassword: Bool = false, validSince: Int64? = nil
    ) {
        self.email = email
        self.emailVerified = emailVerified
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.customAttributes = customAttributes
        self.unlinking = unlinking
        self.removesPassword = removesPassword
        self.validSince = validSince
    }
}

/// A new account as Firebase's admin `accounts` (create) describes it.
public struct FirebaseNewAccount: Sendable, Equatable {
    /// `localId`; nil: a new random uid.
    public var uid: String?
    /// `email`.
    public var email: String?
    /// `password`, in clear (hashed by the broker's hasher).
    public var password: String?
    /// `phoneNumber` (E.164).
    public var phoneNumber: String?
    /// `displayName`.
    public var displayName: String?
    /// `photoUrl`.
    public var photoURL: String?
    /// `emailVerified`.
    public var emailVerified: Bool
    /// `disabled`.
    public var disabled: Bool

    /// Creates the description of a new account.
    public init(
        uid: String? = nil, email: String? = nil, password: String? = nil, phoneNumber: String? = nil,
        displayName: String? = nil, photoURL: String? = nil, emailVerified: Bool = false, disabled: Bool = false
    ) {
        self.uid = uid
        self.email = email
        self.password = password
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.photoURL = photoURL
        self.emailVerified = emailVerified
        self.disabled = disabled
    }
}
