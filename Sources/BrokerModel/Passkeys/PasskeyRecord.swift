public import Foundation

/// A passkey as stored (contract section 15): a WebAuthn credential of an account, its COSE public key (never a
/// secret: the private key stays in the authenticator), its signature counter and its backup state.
public struct PasskeyRecord: Sendable, Equatable {
    /// The credential id, base64url (unique across accounts: a credential is registered once).
    public var id: String
    /// The account it belongs to.
    public var uid: AccountID
    /// The account's user handle the credential holds (`user.id` of the options, base64url), which a discoverable
    /// sign-in presents back.
    public var userHandle: String
    /// The COSE public key, as the authenticator encoded it.
    public var publicKey: [UInt8]
    /// Its COSE algorithm (-7, -8, -19, -257).
    public var algorithm: Int64
    /// The last signature counter seen (0 for an authenticator that does not count).
    public var signCount: Int64
    /// The transports the browser reported (`internal`, `hybrid`, …).
    public var transports: [String]
    /// The name its owner gave it.
    public var name: String?
    /// When it was registered.
    public var createdAt: Date
    /// When it last signed in; nil when it never has.
    public var lastUsedAt: Date?
    /// Whether it may be synced (BE).
    public var backupEligible: Bool
    /// Whether it was synced at its last use (BS).
    public var backedUp: Bool

    /// Creates a record.
    public init(
        id: String, uid: AccountID, userHandle: String, publicKey: [UInt8], algorithm: Int64, signCount: Int64 = 0,
        transports: [String] = [], name: String? = nil, createdAt: Date, lastUsedAt: Date? = nil,
        backupEligible: Bool = false, backedUp: Bool = false
    ) {
        self.id = id
        self.uid = uid
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.transports = transports
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.backupEligible = backupEligible
        self.backedUp = backedUp
    }
}
