import BrokerModel

/// What sign-up accepts as an email and a password.
public enum PasswordPolicy {
    /// The shortest password accepted (the compatibility contract's rule).
    public static let minimumLength = 6
    /// The longest password accepted, in UTF-8 bytes (hashing cost is per byte; nobody types more).
    public static let maximumBytes = 1024

    /// Whether `email` looks like a deliverable address: one `@`, a non-empty local part of at most 64
    /// characters, a dotted domain of non-empty labels, no spaces or control characters, 254 characters at most.
    public static func isValidEmail(_ email: String) -> Bool {
        guard (3...254).contains(email.count), !email.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
        else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].count) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
    }

    /// Checks a sign-up's email and password, throwing the contract's error.
    public static func check(email: String, password: String) throws {
        guard isValidEmail(email) else { throw AccountError(.invalidEmail) }
        guard password.count >= minimumLength else { throw AccountError(.weakPassword) }
        guard password.utf8.count <= maximumBytes else {
            throw ProviderError(.invalidRequest, "password is longer than \(maximumBytes) bytes")
        }
    }
}
