public import BrokerCore
import BrokerModel

/// The broker's password hashing once users are imported: new hashes are Argon2id; a stored hash is
/// verified by its form, Argon2id as ``Argon2PasswordHasher`` does, an imported one (``ImportedPasswordHash``:
/// Firebase's scrypt, standard scrypt, bcrypt, PBKDF2-SHA256, HMAC-SHA256) through OpenSSL or libxcrypt.
///
/// Imported hashes are verified on a small ``BoundedWorkerPool`` of their own, apart from the Argon2 hasher's:
/// one may cost a quarter of a second (a standard scrypt at the import's bounds), so wrong guesses at imported
/// accounts must not hold up everyone else's Argon2id sign-in. At most `importedWorkers` run at once and
/// `importedWaiters` wait; beyond that an imported verification is refused with
/// ``PasswordHashingError/overloaded`` (429 `TOO_MANY_ATTEMPTS` with `Retry-After`, not counted toward the
/// account's lockout: no password was checked). ``needsRehash(_:)`` is true for imported hashes, so the sign-in
/// can replace one with Argon2id after it verifies.
public final class MigratingPasswordHasher: PasswordHashing {
    /// Imported verifications running at once, by default.
    public static let defaultImportedWorkers = 1
    /// Imported verifications waiting for a worker, by default: with one worker and a verification of at most
    /// about 250 ms, a waiter starts within about 2 s.
    public static let defaultImportedWaiters = 8

    /// The hasher for new hashes and Argon2id verification.
    public let argon2: Argon2PasswordHasher
    /// The threads imported verifications run on.
    let importedPool: BoundedWorkerPool
    /// Verifies a password against an imported hash (``ImportedHashVerifier`` unless a test brings its own).
    private let verifyImported: @Sendable (String, ImportedPasswordHash) -> Bool

    /// Wraps `argon2`; imported hashes get `importedWorkers` threads of their own and `importedWaiters` places
    /// in their queue.
    public convenience init(
        argon2: Argon2PasswordHasher = Argon2PasswordHasher(), importedWorkers: Int = defaultImportedWorkers,
        importedWaiters: Int = defaultImportedWaiters
    ) {
        self.init(argon2: argon2, importedWorkers: importedWorkers, importedWaiters: importedWaiters) { password, hash in
            (try? ImportedHashVerifier.verify(password, against: hash)) ?? false
        }
    }

    /// Wraps `argon2`, verifying imported hashes with `verifyImported` (tests: a verifier that blocks).
    init(
        argon2: Argon2PasswordHasher, importedWorkers: Int, importedWaiters: Int,
        verifyImported: @escaping @Sendable (String, ImportedPasswordHash) -> Bool
    ) {
        self.argon2 = argon2
        importedPool = BoundedWorkerPool(
            workers: max(1, importedWorkers), name: "imported-hash", maximumQueued: max(0, importedWaiters))
        self.verifyImported = verifyImported
    }

    deinit { importedPool.stop() }

    /// An Argon2id hash of `password` with a fresh salt.
    public func hash(_ password: String) async throws -> String {
        try await argon2.hash(password)
    }

    /// Whether `password` matches `encoded`, an Argon2id PHC string or an imported hash's stored form.
    /// False for anything else, and for an imported hash beyond the bounds. Throws
    /// ``PasswordHashingError/overloaded`` when the queue the hash would wait in is full.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        guard ImportedPasswordHash.isImported(encoded) else {
            return try await argon2.verify(password, against: encoded)
        }
        guard let imported = try? ImportedPasswordHash(encoded: encoded) else { return false }
        let verify = verifyImported
        do {
            return try await importedPool.run { verify(password, imported) }
        } catch is BoundedWorkerPool.Full {
            throw PasswordHashingError.overloaded
        }
    }

    /// True for an imported hash's stored form, false for Argon2id.
    public func needsRehash(_ encoded: String) -> Bool {
        ImportedPasswordHash.isImported(encoded)
    }
}
