public import BrokerModel
import Foundation

/// A change an administrator asks of an account through ``AdminService/update(_:_:requestID:)-(_,AccountPatch,_)``:
/// nil leaves a field alone, `.some(nil)` removes it.
public struct AccountPatch: Sendable, Equatable {
    /// A new email (`.some(nil)`: removed).
    public var email: String??
    /// Whether the email is verified.
    public var emailVerified: Bool?
    /// A new password, in clear: hashed by the broker's hasher, never stored or logged as given.
    public var password: String?
    /// A new display name (`.some(nil)`: removed).
    public var displayName: String??
    /// A new photo URL (`.some(nil)`: removed).
    public var photoURL: String??
    /// A new phone number (`.some(nil)`: removed).
    public var phoneNumber: String??
    /// Disable or enable.
    public var disabled: Bool?
    /// Custom claims: the JSON text of an object (`{}` clears them).
    public var customAttributes: String?
    /// The providers whose identities are unlinked.
    public var unlinking: [ProviderID]
    /// Whether the password goes, and the email with it.
    public var removesPassword: Bool
    /// Whether the account must keep a way to sign in (the broker's rule: an unlink or a password removal that
    /// would leave none is `lastIdentity`); false lets it go, for a surface whose admin calls allow that.
    public var keepsAWayIn: Bool = true
    /// Whole epoch seconds: ID tokens issued before it stop working, and the account's sessions are revoked
    /// (the broker's and those beyond it, ``SessionRevocation``).
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

/// A new account an administrator creates through ``AdminService/create(_:requestID:)``.
public struct NewAccount: Sendable, Equatable {
    /// The uid; nil: a new random one.
    public var uid: String?
    /// The email.
    public var email: String?
    /// The password, in clear (hashed by the broker's hasher).
    public var password: String?
    /// The phone number (E.164).
    public var phoneNumber: String?
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoURL: String?
    /// Whether the email is verified.
    public var emailVerified: Bool
    /// Whether the account is disabled.
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
