public import Foundation

/// Which accounts a listing wants.
public struct AccountFilter: Sendable, Equatable {
    /// Only the account holding this email (case-insensitive).
    public var email: String?
    /// Only accounts with this sign-in method (a provider's id, or `password` for a usable password).
    public var provider: String?
    /// Only accounts whose email starts with this (case-insensitive).
    public var emailPrefix: String?
    /// Only guests (true) or only accounts that are not guests (false).
    public var anonymous: Bool?

    /// Creates a filter.
    public init(email: String? = nil, provider: String? = nil, emailPrefix: String? = nil, anonymous: Bool? = nil) {
        self.email = email
        self.provider = provider
        self.emailPrefix = emailPrefix
        self.anonymous = anonymous
    }
}
