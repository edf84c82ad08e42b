public import BrokerCore

/// The broker's password hashing once users are imported: new hashes are Argon2id; a stored hash is
/// verified by its form, Argon2id as ``Argon2PasswordHasher`` does, an imported one (``ImportedPasswordHash``:
/// Firebase's scrypt, standard scrypt, bcrypt, PBKDF2-SHA256, HMAC-SHA256) through OpenSSL or libxcrypt.
///
/// Both kinds run on the Argon2 hasher's one ``BoundedWorkerPool``: however many sign-ins arrive, at most
/// its `workers` hashes are computed at once (an imported scrypt may take 64 MiB each), and a full queue
/// is refused with ``PasswordHashingError/overloaded``. ``needsRehash(_:)`` is true for imported hashes, so
/// the sign-in can replace one with Argon2id after it verifies.
public final class MigratingPasswordHasher: PasswordHashing {
    /// The hasher for new hashes and Argon2id verification, whose pool runs imported verifications too.
    public let argon2: Argon2PasswordHasher

    /// Wraps `argon2`.
    public init(argon2: Argon2PasswordHasher = Argon2PasswordHasher()) {
        self.argon2 = argon2
    }

    /// An Argon2id hash of `password` with a fresh salt.
    public func hash(_ password: String) async throws -> String {
        try await argon2.hash(password)
    }

    /// Whether `password` matches `encoded`, an Argon2id PHC string or an imported hash's stored form.
    /// False for anything else, and for an imported hash beyond the bounds.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        guard ImportedPasswordHash.isImported(encoded) else {
            return try await argon2.verify(password, against: encoded)
        }
        guard let imported = try? ImportedPasswordHash(encoded: encoded) else { return false }
        return try await argon2.runOnPool {
            (try? ImportedHashVerifier.verify(password, against: imported)) ?? false
        }
    }

    /// True for an imported hash's stored form, false for Argon2id.
    public func needsRehash(_ encoded: String) -> Bool {
        ImportedPasswordHash.isImported(encoded)
    }
}
