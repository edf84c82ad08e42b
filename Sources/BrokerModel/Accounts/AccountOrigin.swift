public import Foundation

/// Where an account came from (contract section 2): made through `/v1/signup`, by a provider's first
/// sign-in (the provider's id), or by an import. Kept with the account through rehashes, exports and imports:
/// the legacy `email-password` account mapping matches imported accounts only.
public struct AccountOrigin: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// `signup`, `import`, `admin`, or a provider's id.
    public var rawValue: String
    /// Wraps a stored origin.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Made through `/v1/signup`.
    public static let signup = AccountOrigin(rawValue: "signup")
    /// Made by `broker admin import`.
    public static let `import` = AccountOrigin(rawValue: "import")
    /// Made by an administrator through an admin call that creates accounts (`/admin/v1` has none).
    public static let admin = AccountOrigin(rawValue: "admin")
    /// Made by `POST /v1/signin/anonymous` (a guest, contract section 13); kept after its upgrade.
    public static let anonymous = AccountOrigin(rawValue: "anonymous")
    /// Made by the first sign-in with `provider`.
    public static func provider(_ provider: ProviderID) -> AccountOrigin { AccountOrigin(rawValue: provider.rawValue) }

    /// The origin's text.
    public var description: String { rawValue }
}

/// Where an imported account came from, for admins: when, from which file and index, and the identities of
/// providers the broker does not sign in with, under their compatibility names (shown to admins only, never used
/// to sign in, not counted among the account's identities).
public struct AccountImport: Sendable, Equatable {
    /// When the import wrote the account.
    public var importedAt: Date
    /// The export file's name (its last path component).
    public var file: String
    /// The user's 0-based index in the file's `users` array.
    public var index: Int
    /// `providerUserInfo` entries of other providers: provider = the compatibility provider id (`facebook.com`),
    /// subject = `rawId`.
    public var otherIdentities: [Identity]

    /// Import metadata.
    public init(importedAt: Date, file: String, index: Int, otherIdentities: [Identity] = []) {
        self.importedAt = importedAt
        self.file = file
        self.index = index
        self.otherIdentities = otherIdentities
    }
}
