public import Foundation

/// Something accepted once only (a provider's single-use identity token), remembered until it expires.
public struct SingleUseMark: Sendable, Equatable {
    /// A hash identifying the thing (never the thing itself).
    public var key: String
    /// After this instant the mark may be forgotten.
    public var expiresAt: Date

    /// Creates a mark.
    public init(key: String, expiresAt: Date) {
        self.key = key
        self.expiresAt = expiresAt
    }
}
