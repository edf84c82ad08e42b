import BrokerCrypto
public import Foundation

/// The broker's id for an account, its uid: 28 characters of base-62.
public struct AccountID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The uid text.
    public var rawValue: String
    /// Wraps an existing uid.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps an existing uid.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The uid text.
    public var description: String { rawValue }

    /// A new random uid.
    public static func generate() -> AccountID {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps the choice uniform.
        var characters: [Character] = []
        while characters.count < 28 {
            for byte in SecureRandom.bytes(32) where byte < 248 && characters.count < 28 {
                characters.append(alphabet[Int(byte) % 62])
            }
        }
        return AccountID(String(characters))
    }
}

/// A sign-in method's name: a provider's id, or `password`.
public struct ProviderID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The provider's name as it appears in URLs and config.
    public var rawValue: String
    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The name.
    public var description: String { rawValue }
}

/// A provider identity linked to an account: (provider, subject) is unique across all accounts.
public struct Identity: Sendable, Equatable {
    /// The provider.
    public var provider: ProviderID
    /// The provider's stable user id (an ID token's `sub`, or the user id an API gives).
    public var subject: String
    /// The email the provider gave for it, if any.
    public var email: String?
    /// When it was linked.
    public var linkedAt: Date
    /// A token the provider gave the broker for this identity (a refresh token, revoked when the account is
    /// deleted), sealed: base64 of an AES-256-GCM box under `BROKER_ENCRYPTION_KEY`, never the token in clear.
    /// Admin views show only whether one is held.
    public var providerToken: String?
    /// The kind of credential that linked it (an ID token or an access token), by which a surface may name the
    /// identity; nil for an identity stored before the kind was (legacy), or
    /// linked by no credential (an import that does not say, a uid prefix).
    public var kind: CredentialKind?

    /// Creates an identity.
    public init(
        provider: ProviderID, subject: String, email: String?, linkedAt: Date, providerToken: String? = nil,
        kind: CredentialKind? = nil
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.linkedAt = linkedAt
        self.providerToken = providerToken
        self.kind = kind
    }
}

/// An account: the aggregate the ``AccountStore`` loads and saves whole.
public struct Account: Sendable, Equatable {
    /// The uid.
    public var id: AccountID
    /// The account's email; at most one account holds a given email, compared case-insensitively.
    public var email: String?
    /// The account's phone number in E.164 (`+` and 2 to 15 digits); at most one account holds a given number.
    /// An attribute only: the broker sends no SMS and signs no one in with it.
    public var phoneNumber: String?
    /// Whether that email is known to belong to the user.
    public var emailVerified: Bool
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoURL: String?
    /// A disabled account cannot sign in or refresh.
    public var disabled: Bool
    /// The provider whose "the user left" event disabled the account (``AccountLifecycle``): that provider's
    /// next successful sign-in enables it again. Nil when it is enabled or an administrator disabled it (a
    /// sign-in never undoes an administrator's disable).
    public var disabledBy: ProviderID?
    /// When the account was created.
    public var createdAt: Date
    /// The last successful sign-in.
    public var lastSignInAt: Date?
    /// The linked provider identities.
    public var identities: [Identity]
    /// The account's password credential, if it has one: one optional value, so that setting a password cannot
    /// leave a stale flag behind (``PasswordCredential/chosen(_:)``), and removing it removes both.
    public var password: PasswordCredential?
    /// Custom claims (a JSON object's text) added to the tokens minted for this account.
    public var customClaims: String?
    /// ID tokens issued before this instant (whole seconds) no longer authenticate: set when the account's
    /// sessions are revoked (a takeover, an admin's revoke-sessions).
    public var tokensValidAfter: Date?
    /// Where the account came from; nil for accounts stored before origins were kept (schema version 5).
    public var origin: AccountOrigin?
    /// For an imported account: when, from which file and index, and its other providers' identities.
    public var imported: AccountImport?
    /// Whether the account is a guest's (contract section 13): made by `POST /v1/signin/anonymous` with no email
    /// and no identity, until an upgrade gives it a way to sign in and sets this false. A guest never gets mail,
    /// and one with no sign-in and no refresh for `anonymous.deleteAfterDays` is swept.
    public var isAnonymous: Bool

    /// Creates an account.
    public init(
        id: AccountID, email: String? = nil, emailVerified: Bool = false, displayName: String? = nil,
        photoURL: String? = nil, disabled: Bool = false, createdAt: Date, lastSignInAt: Date? = nil,
        identities: [Identity] = [], password: PasswordCredential? = nil,
        customClaims: String? = nil, tokensValidAfter: Date? = nil, origin: AccountOrigin? = nil,
        imported: AccountImport? = nil, disabledBy: ProviderID? = nil, phoneNumber: String? = nil,
        isAnonymous: Bool = false
    ) {
        self.isAnonymous = isAnonymous
        self.phoneNumber = phoneNumber
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.identities = identities
        self.password = password
        self.customClaims = customClaims
        self.tokensValidAfter = tokensValidAfter
        self.origin = origin
        self.imported = imported
        self.disabledBy = disabledBy
    }

    /// Whether the account has a password the user can sign in with.
    public var hasUsablePassword: Bool { password.map { !$0.isDerived } ?? false }

    /// The identity of `provider`, if linked.
    public func identity(_ provider: ProviderID) -> Identity? {
        identities.first { $0.provider == provider }
    }
}

/// An account's password credential: its hash, and whether it was chosen by the user or derived from a provider id.
public struct PasswordCredential: Sendable, Equatable {
    /// The encoded hash: Argon2id, or an imported hash in the stored form of ``ImportedPasswordHash``.
    public var hash: String
    /// Whether it was derived from a provider id rather than chosen by the user: such a credential never works for
    /// password sign-in, since the id is no secret. Only accounts stored by earlier releases hold one (the legacy
    /// `email-password` account mapping now stores no derived password and deletes the one it links).
    public var isDerived: Bool

    /// Creates a credential.
    public init(hash: String, isDerived: Bool) {
        self.hash = hash
        self.isDerived = isDerived
    }

    /// A password the user chose, by its hash.
    public static func chosen(_ hash: String) -> PasswordCredential {
        PasswordCredential(hash: hash, isDerived: false)
    }
}
