import BrokerCore
import BrokerCrypto
import BrokerModel

/// Verifies a password against an ``ImportedPasswordHash``: OpenSSL for scrypt, AES, PBKDF2 and HMAC,
/// libxcrypt for bcrypt. Blocking and, for scrypt, memory-heavy (up to 64 MiB): run it on a
/// ``BoundedWorkerPool``, as ``MigratingPasswordHasher`` does.
enum ImportedHashVerifier {
    /// Whether `password` matches `hash`, compared in constant time. Throws ``ImportedHashError`` for a hash
    /// beyond the bounds, and `CryptoError` when OpenSSL fails.
    static func verify(_ password: String, against hash: ImportedPasswordHash) throws -> Bool {
        try hash.validate()
        let password = Array(password.utf8)
        switch hash {
        case let .firebaseScrypt(signerKey, separator, rounds, memoryCost, salt, expected):
            let key = try Scrypt.derive(
                password: password, salt: salt + separator, n: 1 << UInt64(memoryCost), r: UInt64(rounds), p: 1,
                length: 32)
            let computed = try AESCTR.aes256(key: key, iv: [UInt8](repeating: 0, count: 16), data: signerKey)
            return constantTimeEquals(computed, expected)
        case let .standardScrypt(n, blockSize, parallelization, separator, salt, expected):
            let computed = try Scrypt.derive(
                password: password, salt: salt + separator, n: UInt64(n), r: UInt64(blockSize),
                p: UInt64(parallelization), length: expected.count)
            return constantTimeEquals(computed, expected)
        case .bcrypt(let crypt):
            return Bcrypt.verify(password, against: crypt)
        case let .pbkdf2(digest, rounds, separator, salt, expected):
            let computed = try PBKDF2.derive(
                digest, password: password, salt: salt + separator, iterations: rounds, length: expected.count)
            return constantTimeEquals(computed, expected)
        case let .hmac(digest, key, order, separator, salt, expected):
            let message = order.input(password: password, salt: salt, separator: separator)
            return constantTimeEquals(HMAC.mac(digest, key: key, message: message), expected)
        case let .digest(digest, rounds, order, separator, salt, expected):
            var computed = Digest.hash(digest, order.input(password: password, salt: salt, separator: separator))
            for _ in 1..<max(rounds, 1) { computed = Digest.hash(digest, computed) }
            // Firebase keeps an MD5 hash as the text of its hexadecimal digits.
            if expected.count == 2 * digest.length { computed = Array(Hex.encode(computed).utf8) }
            return constantTimeEquals(computed, expected)
        }
    }
}
