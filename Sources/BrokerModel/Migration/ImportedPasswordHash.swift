public import BrokerCrypto

/// A password hash taken over from another system (Firebase Auth's export, or what `firebase auth:import`
/// accepts), with everything needed to verify it: algorithm, parameters, salt and hash.
///
/// Its stored form (``encoded``) is one string the account store keeps in its password-hash column, in the
/// shape of a PHC string with unpadded standard base64 fields:
///
/// ```
/// $firebase-scrypt$r=<rounds>,m=<memCost>,k=<signer key>,s=<salt separator>$<salt>$<hash>
/// $standard-scrypt$n=<N>,r=<block size>,p=<parallelization>,s=<salt separator>$<salt>$<hash>
/// $pbkdf2-sha256$i=<rounds>,s=<salt separator>$<salt>$<hash>          (also pbkdf2-sha1)
/// $hmac-sha256$k=<key>,o=<salt-first|password-first>,s=<salt separator>$<salt>$<hash>
///                                                 (also hmac-md5, hmac-sha1, hmac-sha512)
/// $sha256$r=<rounds>,o=<salt-first|password-first>,s=<salt separator>$<salt>$<hash>
///                                                 (also md5, sha1, sha512)
/// $2b$<cost>$<bcrypt salt and hash>            (bcrypt's own crypt string, as imported)
/// ```
///
/// Every value is checked against ``Bounds`` whether it comes from flags or from a stored string, so a
/// tampered row cannot make a sign-in take more memory or time than an import could.
public enum ImportedPasswordHash: Sendable, Equatable {
    /// Firebase's modified scrypt: scrypt(password, salt + separator, N = 2^memoryCost, r = rounds, p = 1,
    /// 32 bytes) is the AES-256-CTR key (zero IV) that encrypts the signer key into the hash.
    case firebaseScrypt(
        signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int, salt: [UInt8], hash: [UInt8])
    /// RFC 7914 scrypt of the password with salt + separator; the hash's length is the derived key length.
    case standardScrypt(
        n: Int, blockSize: Int, parallelization: Int, saltSeparator: [UInt8], salt: [UInt8], hash: [UInt8])
    /// A bcrypt crypt string (`$2a$`, `$2b$` or `$2y$`), verified through libxcrypt.
    case bcrypt(String)
    /// PBKDF2 over HMAC-SHA256 (`PBKDF2_SHA256`) or HMAC-SHA1 (`PBKDF_SHA1`) of the password with salt +
    /// separator; the hash's length is the derived key length.
    case pbkdf2(DigestAlgorithm, rounds: Int, saltSeparator: [UInt8], salt: [UInt8], hash: [UInt8])
    /// HMAC over the digest (`HMAC_MD5`, `HMAC_SHA1`, `HMAC_SHA256`, `HMAC_SHA512`) under `key` of
    /// salt + separator and the password, in `order`.
    case hmac(
        DigestAlgorithm, key: [UInt8], order: HashInputOrder, saltSeparator: [UInt8], salt: [UInt8], hash: [UInt8])
    /// A plain digest (`MD5`, `SHA1`, `SHA256`, `SHA512`) of salt + separator and the password, in `order`,
    /// applied `rounds` times (each round after the first over the previous digest; MD5's 0 rounds are one).
    /// An MD5 hash is its 16 bytes, or its 32 characters of lowercase hexadecimal as Firebase keeps MD5 hashes.
    case digest(
        DigestAlgorithm, rounds: Int, order: HashInputOrder, saltSeparator: [UInt8], salt: [UInt8], hash: [UInt8])

    /// Which of salt and password comes first in the hashed input (`--hash-input-order`).
    public enum HashInputOrder: String, Sendable, Equatable {
        /// `SALT_FIRST`: salt + separator, then the password.
        case saltFirst = "salt-first"
        /// `PASSWORD_FIRST`: the password, then salt + separator.
        case passwordFirst = "password-first"

        /// The spelling of `--hash-input-order`: `SALT_FIRST` or `PASSWORD_FIRST`.
        public var flag: String { self == .saltFirst ? "SALT_FIRST" : "PASSWORD_FIRST" }

        /// The hashed input: salt + separator and the password, in this order.
        public func input(password: [UInt8], salt: [UInt8], separator: [UInt8]) -> [UInt8] {
            self == .saltFirst ? salt + separator + password : password + salt + separator
        }
    }

    /// The limits every imported hash is held to (contract section 8, and more for what it leaves open).
    public enum Bounds {
        /// scrypt's memory, 128 · N · r bytes, at most 64 MiB.
        public static let scryptMemory = 64 * 1024 * 1024
        /// scrypt's total work, 128 · N · r · p bytes passed over, at most 256 MiB: the ceiling for a hash the broker
        /// holds already (stored, or in its own export). What an import takes in is held to ``scryptImportWork``.
        public static let scryptWork = 256 * 1024 * 1024
        /// STANDARD_SCRYPT's work for a hash an import takes in (`--hash-algo` flags, `batchCreate`): 128 · N · r · p
        /// at most 64 MiB (N = 2^16, r = 8, p = 1), about 250 ms of one core (docs/migration.md has the figures).
        public static let scryptImportWork = 64 * 1024 * 1024
        /// Firebase's SCRYPT: rounds (r) 1...8, memory cost (log2 N) 1...14, as `firebase auth:import` allows.
        public static let firebaseRounds = 1...8
        /// Firebase's SCRYPT memory cost, log2 N.
        public static let firebaseMemoryCost = 1...14
        /// STANDARD_SCRYPT's block size.
        public static let scryptBlockSize = 1...32
        /// STANDARD_SCRYPT's parallelization.
        public static let scryptParallelization = 1...16
        /// bcrypt's cost (log2 of the rounds): the ceiling for a hash the broker holds already.
        public static let bcryptCost = 4...14
        /// bcrypt's cost for a hash an import takes in: cost 12 is about 200 ms of one core, 14 about 800 ms.
        public static let bcryptImportCost = 4...12
        /// PBKDF2's rounds, at most 10^6.
        public static let pbkdf2Rounds = 1...1_000_000
        /// The rounds of a plain digest (MD5, SHA1, SHA256, SHA512), as Firebase allows them; MD5 also takes 0.
        public static let digestRounds = 1...8192
        /// The length of a derived key (a hash) for scrypt and PBKDF2: shorter ones match too many passwords.
        public static let derivedLength = 16...256
        /// The length of an HMAC key in bytes.
        public static let keyLength = 1...1024
        /// The length of Firebase SCRYPT's signer key in bytes. The hash is the signer key encrypted, as long as
        /// the key, so a short key is a short hash that many passwords match (a 1-byte key, one in 256): at least
        /// 16 bytes, as ``derivedLength`` holds the other algorithms' hashes. Firebase's own keys are 64 bytes.
        public static let signerKeyLength = 16...1024
        /// The length of a user's salt in bytes.
        public static let saltLength = 0...1024
        /// The length of the salt separator in bytes.
        public static let separatorLength = 0...256
    }

    /// The prefixes of the stored forms, for telling an imported hash from an Argon2id one cheaply.
    public static let storedPrefixes =
        ["$firebase-scrypt$", "$standard-scrypt$", "$2a$", "$2b$", "$2y$"]
        + pbkdf2Digests.map { "$pbkdf2-\($0.rawValue)$" } + DigestAlgorithm.allCases.map { "$hmac-\($0.rawValue)$" }
        + DigestAlgorithm.allCases.map { "$\($0.rawValue)$" }

    /// The digests PBKDF2 is imported with: Firebase's `PBKDF_SHA1` and `PBKDF2_SHA256`.
    public static let pbkdf2Digests: [DigestAlgorithm] = [.sha1, .sha256]

    /// Whether `encoded` looks like the stored form of an imported hash (by prefix only; parse to be sure).
    public static func isImported(_ encoded: String) -> Bool {
        storedPrefixes.contains { encoded.hasPrefix($0) }
    }

    /// The name of the algorithm as `firebase auth:import`'s `--hash-algo` spells it.
    public var algorithmName: String {
        switch self {
        case .firebaseScrypt: "SCRYPT"
        case .standardScrypt: "STANDARD_SCRYPT"
        case .bcrypt: "BCRYPT"
        case .pbkdf2(let digest, _, _, _, _): digest == .sha1 ? "PBKDF_SHA1" : "PBKDF2_SHA256"
        case .hmac(let digest, _, _, _, _, _): "HMAC_" + digest.rawValue.uppercased()
        case .digest(let digest, _, _, _, _, _): digest.rawValue.uppercased()
        }
    }

    /// Throws ``ImportedHashError`` (`parameterOutOfRange` or `hashMismatch`) unless every value is within
    /// ``Bounds`` and the hash has a length the algorithm can produce.
    public func validate() throws {
        switch self {
        case let .firebaseScrypt(signerKey, separator, rounds, memoryCost, salt, hash):
            try Self.check(rounds, in: Bounds.firebaseRounds, "rounds")
            try Self.check(memoryCost, in: Bounds.firebaseMemoryCost, "mem-cost")
            try Self.check(signerKey.count, in: Bounds.signerKeyLength, "hash-key length")
            try Self.checkSalts(salt, separator)
            // The hash is the signer key encrypted in CTR mode: exactly as long as the key.
            guard hash.count == signerKey.count else { throw ImportedHashError(.hashMismatch, "SCRYPT hash length") }
        case let .standardScrypt(n, blockSize, parallelization, separator, salt, hash):
            guard n >= 2, n <= 1 << 24, n & (n - 1) == 0 else {
                throw ImportedHashError(.parameterOutOfRange, "mem-cost (N) must be a power of two from 2 to 2^24")
            }
            try Self.check(blockSize, in: Bounds.scryptBlockSize, "block-size")
            try Self.check(parallelization, in: Bounds.scryptParallelization, "parallelization")
            guard 128 * n * blockSize <= Bounds.scryptMemory else {
                throw ImportedHashError(.parameterOutOfRange, "scrypt memory (128 * N * r) above 64 MiB")
            }
            guard 128 * n * blockSize * parallelization <= Bounds.scryptWork else {
                throw ImportedHashError(.parameterOutOfRange, "scrypt work (128 * N * r * p) above 256 MiB")
            }
            try Self.checkSalts(salt, separator)
            guard Bounds.derivedLength.contains(hash.count) else {
                throw ImportedHashError(.hashMismatch, "STANDARD_SCRYPT hash length")
            }
        case .bcrypt(let crypt):
            _ = try Self.bcryptCost(crypt)
        case let .pbkdf2(digest, rounds, separator, salt, hash):
            guard Self.pbkdf2Digests.contains(digest) else {
                throw ImportedHashError(.unsupportedAlgorithm, "PBKDF2 over \(digest.rawValue)")
            }
            try Self.check(rounds, in: Bounds.pbkdf2Rounds, "rounds")
            try Self.checkSalts(salt, separator)
            guard Bounds.derivedLength.contains(hash.count) else {
                throw ImportedHashError(.hashMismatch, "\(algorithmName) hash length")
            }
        case let .hmac(digest, key, _, separator, salt, hash):
            try Self.check(key.count, in: Bounds.keyLength, "hash-key length")
            try Self.checkSalts(salt, separator)
            guard hash.count == digest.length else {
                throw ImportedHashError(.hashMismatch, "\(algorithmName) hash length")
            }
        case let .digest(digest, rounds, _, separator, salt, hash):
            try Self.check(rounds, in: Self.digestRounds(digest), "rounds")
            try Self.checkSalts(salt, separator)
            let hexMD5 = digest == .md5 && hash.count == 2 * digest.length
            guard hash.count == digest.length || hexMD5 else {
                throw ImportedHashError(.hashMismatch, "\(algorithmName) hash length")
            }
        }
    }

    /// The rounds a plain digest takes: ``Bounds/digestRounds``, and 0 for MD5 (one round, as Firebase counts).
    package static func digestRounds(_ digest: DigestAlgorithm) -> ClosedRange<Int> {
        digest == .md5 ? 0...Bounds.digestRounds.upperBound : Bounds.digestRounds
    }

    /// The cost of a bcrypt crypt string, or ``ImportedHashError`` when it is not one (`malformed`) or its
    /// cost is beyond ``Bounds/bcryptCost`` (`parameterOutOfRange`).
    package static func bcryptCost(_ crypt: String) throws -> Int {
        let bytes = Array(crypt.utf8)
        // $2b$NN$ + 22 characters of salt + 31 of hash.
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]), bytes[3] == UInt8(ascii: "$"),
            bytes[6] == UInt8(ascii: "$"), let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
            bytes[7...].allSatisfy(isBcryptBase64)
        else { throw ImportedHashError(.malformed, "not a bcrypt hash") }
        try check(cost, in: Bounds.bcryptCost, "bcrypt cost")
        return cost
    }

    private static func isBcryptBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "/"):
            true
        default: false
        }
    }

    package static func check(_ value: Int, in range: ClosedRange<Int>, _ name: String) throws {
        guard range.contains(value) else {
            throw ImportedHashError(.parameterOutOfRange, "\(name) must be within \(range.lowerBound)...\(range.upperBound)")
        }
    }

    private static func checkSalts(_ salt: [UInt8], _ separator: [UInt8]) throws {
        try check(salt.count, in: Bounds.saltLength, "salt length")
        try check(separator.count, in: Bounds.separatorLength, "salt-separator length")
    }
}
