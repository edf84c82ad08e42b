/// The port for password hashing (Argon2id through libargon2 in production). Implementations run the work
/// off Swift's cooperative pool with bounded concurrency, so a burst of sign-ups cannot exhaust memory, and
/// refuse work with ``PasswordHashingError`` when their queue is full rather than let it grow without end.
public protocol PasswordHashing: Sendable {
    /// An encoded hash of `password` with a fresh salt.
    func hash(_ password: String) async throws -> String
    /// Whether `password` matches `encoded` (false for a malformed hash).
    func verify(_ password: String, against encoded: String) async throws -> Bool
}

/// Password hashing could not take the work now.
public struct PasswordHashingError: Error, Sendable, Equatable {
    /// Too much hashing is queued already; the client should retry shortly.
    public static let overloaded = PasswordHashingError()
}
