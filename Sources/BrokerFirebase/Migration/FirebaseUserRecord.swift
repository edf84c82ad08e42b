import BrokerCore
public import BrokerModel
public import Foundation

/// One user of a Firebase export, decoded and validated: what the import needs, in the broker's types.
public struct FirebaseUserRecord: Sendable, Equatable {
    /// The largest JSON text of one record accepted.
    public static let maximumRecordBytes = 1024 * 1024
    /// The most `providerUserInfo` entries accepted.
    public static let maximumProviders = 64

    /// `localId`: the uid, kept unchanged (1 to 128 characters, no control characters).
    public var localId: String
    /// `email`, if any.
    public var email: String?
    /// `emailVerified` (false when absent).
    public var emailVerified: Bool
    /// `passwordHash`, decoded from base64 (either alphabet), if any.
    public var passwordHash: [UInt8]?
    /// `salt`, decoded from base64 (either alphabet), if any.
    public var salt: [UInt8]?
    /// `displayName`, if any.
    public var displayName: String?
    /// `photoUrl`, if it is an `http(s)` URL (otherwise dropped and named in ``notes``).
    public var photoURL: String?
    /// `phoneNumber`, if any.
    public var phoneNumber: String?
    /// `disabled` (false when absent).
    public var disabled: Bool
    /// `createdAt` (milliseconds since 1970), if any.
    public var createdAt: Date?
    /// `lastSignedInAt` (milliseconds since 1970), if any.
    public var lastSignedInAt: Date?
    /// `customAttributes`: the JSON text of an object, valid as custom claims, if any.
    public var customAttributes: String?
    /// `providerUserInfo`: the identities Firebase linked to the user (including `password`).
    public var providerUserInfo: [FirebaseProviderUserInfo]
    /// What was dropped or ignored while decoding (a `photoUrl` that is not http(s), an unknown field), for
    /// the import's report. Never contains a value, only field names.
    public var notes: [String]
    /// The broker's extension field ``hashConfigField``: the algorithm and parameters of a hash exported
    /// before it was upgraded to Argon2id, used instead of the import's hash flags.
    public var hashConfig: FirebaseHashOptions?
    /// The broker's extension field ``originField``: where the account first came from.
    public var origin: AccountOrigin?
    /// The broker's extension field ``secondFactorsField``: the account's second factors.
    public var secondFactors: ExportedSecondFactors?

    /// The extension field in which `broker admin export` writes a not-yet-upgraded hash's parameters.
    public static let hashConfigField = "brokerHashConfig"
    /// The extension field in which `broker admin export` writes an account's origin.
    public static let originField = "brokerOrigin"
    /// The extension field in which `broker admin export` writes an account's second factors.
    public static let secondFactorsField = "brokerSecondFactors"

    /// A record with the given fields.
    public init(
        localId: String, email: String? = nil, emailVerified: Bool = false, passwordHash: [UInt8]? = nil,
        salt: [UInt8]? = nil, displayName: String? = nil, photoURL: String? = nil, phoneNumber: String? = nil,
        disabled: Bool = false, createdAt: Date? = nil, lastSignedInAt: Date? = nil, customAttributes: String? = nil,
        providerUserInfo: [FirebaseProviderUserInfo] = [], notes: [String] = [], hashConfig: FirebaseHashOptions? = nil,
        origin: AccountOrigin? = nil, secondFactors: ExportedSecondFactors? = nil
    ) {
        self.secondFactors = secondFactors
        self.localId = localId
        self.email = email
        self.emailVerified = emailVerified
        self.passwordHash = passwordHash
        self.salt = salt
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastSignedInAt = lastSignedInAt
        self.customAttributes = customAttributes
        self.providerUserInfo = providerUserInfo
        self.notes = notes
        self.hashConfig = hashConfig
        self.origin = origin
    }
}

/// One entry of a user's `providerUserInfo`.
public struct FirebaseProviderUserInfo: Sendable, Equatable {
    /// Firebase's provider id: `password`, a well-known domain, `oidc.<name>`, …
    public var providerId: String
    /// The user's id at that provider (the identity's subject).
    public var rawId: String
    /// The email the provider gave, if any.
    public var email: String?
    /// The name the provider gave, if any.
    public var displayName: String?
    /// The provider's photo URL, if it is an `http(s)` URL.
    public var photoURL: String?
    /// The broker's extension field ``providerField``: the broker's provider this identity belongs to, as
    /// `broker admin export` writes it (the import links it there without `--map-provider`).
    public var brokerProvider: ProviderID?
    /// The broker's extension field ``linkedAtField``: when the identity was linked (milliseconds).
    public var linkedAt: Date?
    /// The broker's extension field ``kindField``: the kind of credential that linked the identity (`idToken`,
    /// `accessToken`), absent when the broker did not know it; with ``brokerProvider``, the import takes it as
    /// written instead of reading the kind from the provider id.
    public var credentialKind: CredentialKind?

    /// The extension field naming the broker's provider of an exported identity.
    public static let providerField = "brokerProvider"
    /// The extension field holding when an exported identity was linked.
    public static let linkedAtField = "brokerLinkedAt"
    /// The extension field holding the kind of credential that linked an exported identity.
    public static let kindField = "brokerCredentialKind"

    /// An entry with the given fields.
    public init(
        providerId: String, rawId: String, email: String? = nil, displayName: String? = nil, photoURL: String? = nil,
        brokerProvider: ProviderID? = nil, linkedAt: Date? = nil, credentialKind: CredentialKind? = nil
    ) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.brokerProvider = brokerProvider
        self.linkedAt = linkedAt
        self.credentialKind = credentialKind
    }
}
