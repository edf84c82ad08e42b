public import BrokerModel

/// The port for password hashing (Argon2id through libargon2 in production). Implementations run the work
/// off Swift's cooperative pool with bounded concurrency, so a burst of sign-ups cannot exhaust memory, and
/// refuse work with ``PasswordHashingError`` when their queue is full rather than let it grow without end.
public protocol PasswordHashing: Sendable {
    /// An encoded hash of `password` with a fresh salt.
    func hash(_ password: String) async throws -> String
    /// Whether `password` matches `encoded` (false for a malformed hash).
    func verify(_ password: String, against encoded: String) async throws -> Bool
    /// Whether `encoded` should be replaced by a fresh ``hash(_:)`` of the password once it has verified:
    /// true for imported hashes (``ImportedPasswordHash``), so the first successful sign-in upgrades them.
    func needsRehash(_ encoded: String) -> Bool
}

extension PasswordHashing {
    /// True for the stored form of an imported hash (``ImportedPasswordHash/isImported(_:)``), false for the
    /// hasher's own hashes.
    public func needsRehash(_ encoded: String) -> Bool { ImportedPasswordHash.isImported(encoded) }
}

/// Password hashing could not take the work now.
public struct PasswordHashingError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// Too much hashing is queued already.
        case overloaded
    }

    /// The reason.
    public var code: Code = .overloaded
    /// Nothing beyond the code.
    public var detail: String { "" }

    /// Too much hashing is queued already; the client should retry shortly.
    public static let overloaded = PasswordHashingError()

    /// Too much hashing at once: retry in a second (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .overloaded: .passwordHashingBusy
        }
    }
}
