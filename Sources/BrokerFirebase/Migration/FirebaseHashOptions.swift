import BrokerCore
import BrokerCrypto
public import BrokerModel

/// The password-hash flags of `broker admin import firebase`, which are those of `firebase auth:import`
/// (`--hash-algo`, `--hash-key`, `--salt-separator`, `--rounds`, `--mem-cost`, `--parallelization`,
/// `--block-size`, `--dk-len`, `--hash-input-order`), checked once and then applied to each user's
/// `passwordHash` and `salt`.
public struct FirebaseHashOptions: Sendable, Equatable {
    /// The algorithms the broker verifies.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// Firebase's modified scrypt, the default of Firebase projects.
        case scrypt = "SCRYPT"
        /// RFC 7914 scrypt.
        case standardScrypt = "STANDARD_SCRYPT"
        /// bcrypt crypt strings.
        case bcrypt = "BCRYPT"
        /// PBKDF2-HMAC-SHA256.
        case pbkdf2SHA256 = "PBKDF2_SHA256"
        /// HMAC-SHA256 with a key.
        case hmacSHA256 = "HMAC_SHA256"
        /// HMAC-SHA512 with a key.
        case hmacSHA512 = "HMAC_SHA512"
        /// HMAC-SHA1 with a key.
        case hmacSHA1 = "HMAC_SHA1"
        /// HMAC-MD5 with a key.
        case hmacMD5 = "HMAC_MD5"
        /// MD5, repeated `--rounds` times (0 or 1: once).
        case md5 = "MD5"
        /// SHA-1, repeated `--rounds` times.
        case sha1 = "SHA1"
        /// SHA-256, repeated `--rounds` times.
        case sha256 = "SHA256"
        /// SHA-512, repeated `--rounds` times.
        case sha512 = "SHA512"
        /// PBKDF2-HMAC-SHA1.
        case pbkdfSHA1 = "PBKDF_SHA1"

        /// The digest of an HMAC algorithm.
        var hmacDigest: DigestAlgorithm? {
            switch self {
            case .hmacMD5: .md5
            case .hmacSHA1: .sha1
            case .hmacSHA256: .sha256
            case .hmacSHA512: .sha512
            default: nil
            }
        }

        /// The digest of a plain digest algorithm.
        var plainDigest: DigestAlgorithm? {
            switch self {
            case .md5: .md5
            case .sha1: .sha1
            case .sha256: .sha256
            case .sha512: .sha512
            default: nil
            }
        }

        /// The order of salt and password when `--hash-input-order` is not given, as Firebase's own tests
        /// hash: the password first for an HMAC (`HMAC(key, password + salt)`), the salt first for the others.
        public var defaultInputOrder: ImportedPasswordHash.HashInputOrder {
            hmacDigest == nil ? .saltFirst : .passwordFirst
        }
    }

    /// The algorithm.
    public var algorithm: Algorithm
    /// `--hash-key`: SCRYPT's signer key (at least 16 bytes), or an HMAC's key.
    public var hashKey: [UInt8]
    /// `--salt-separator`: appended to each user's salt (all algorithms but BCRYPT).
    public var saltSeparator: [UInt8]
    /// `--rounds`: SCRYPT's r, PBKDF2_SHA256's and PBKDF_SHA1's iterations, or how many times a plain digest
    /// (MD5, SHA1, SHA256, SHA512) is applied.
    public var rounds: Int?
    /// `--mem-cost`: SCRYPT's log2 N, or STANDARD_SCRYPT's N itself (its "CPU/memory cost").
    public var memCost: Int?
    /// `--parallelization`: STANDARD_SCRYPT's p.
    public var parallelization: Int?
    /// `--block-size`: STANDARD_SCRYPT's r.
    public var blockSize: Int?
    /// `--dk-len`: STANDARD_SCRYPT's derived key length (and, if given, PBKDF2's); each hash must
    /// have this length.
    public var dkLen: Int?
    /// `--hash-input-order` for the HMACs and plain digests; when not given, the algorithm's
    /// ``Algorithm/defaultInputOrder``.
    public var hashInputOrder: ImportedPasswordHash.HashInputOrder

    /// Parses the flags' texts (nil for a flag not given), and checks that the algorithm has what it needs
    /// within ``ImportedPasswordHash/Bounds``, including the time budget of what an import takes in
    /// (``ImportedPasswordHash/Bounds/scryptImportWork``, ``ImportedPasswordHash/Bounds/bcryptImportCost``).
    /// Base64 in either alphabet. Throws ``ImportedHashError``: `unsupportedAlgorithm`, `missingParameter` or
    /// `parameterOutOfRange`.
    public init(
        hashAlgo: String, hashKey: String? = nil, saltSeparator: String? = nil, rounds: String? = nil,
        memCost: String? = nil, parallelization: String? = nil, blockSize: String? = nil, dkLen: String? = nil,
        hashInputOrder: String? = nil
    ) throws {
        guard let algorithm = Algorithm(rawValue: hashAlgo.uppercased()) else {
            throw ImportedHashError(.unsupportedAlgorithm, "--hash-algo must be one of "
                + Algorithm.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self.algorithm = algorithm
        self.hashKey = try hashKey.map { try Self.base64($0, "--hash-key") } ?? []
        self.saltSeparator = try saltSeparator.map { try Self.base64($0, "--salt-separator") } ?? []
        self.rounds = try rounds.map { try Self.number($0, "--rounds") }
        self.memCost = try memCost.map { try Self.number($0, "--mem-cost") }
        self.parallelization = try parallelization.map { try Self.number($0, "--parallelization") }
        self.blockSize = try blockSize.map { try Self.number($0, "--block-size") }
        self.dkLen = try dkLen.map { try Self.number($0, "--dk-len") }
        switch hashInputOrder?.uppercased() {
        case nil: self.hashInputOrder = algorithm.defaultInputOrder
        case "SALT_FIRST": self.hashInputOrder = .saltFirst
        case "PASSWORD_FIRST": self.hashInputOrder = .passwordFirst
        default: throw ImportedHashError(.parameterOutOfRange, "--hash-input-order must be SALT_FIRST or PASSWORD_FIRST")
        }
        try checkFlags()
    }

    /// The imported hash of one user from the export's `passwordHash` and `salt` (decoded), or
    /// ``ImportedHashError`` (`hashMismatch`, `parameterOutOfRange`) when they do not fit these flags.
    public func importedHash(passwordHash: [UInt8], salt: [UInt8]) throws -> ImportedPasswordHash {
        let hash: ImportedPasswordHash
        switch algorithm {
        case .scrypt:
            hash = .firebaseScrypt(
                signerKey: hashKey, saltSeparator: saltSeparator, rounds: rounds ?? 0, memoryCost: memCost ?? 0,
                salt: salt, hash: passwordHash)
        case .standardScrypt:
            guard passwordHash.count == dkLen else { throw ImportedHashError(.hashMismatch, "hash length is not --dk-len") }
            hash = .standardScrypt(
                n: memCost ?? 0, blockSize: blockSize ?? 0, parallelization: parallelization ?? 0,
                saltSeparator: saltSeparator, salt: salt, hash: passwordHash)
        case .bcrypt:
            // The export carries bcrypt's crypt string itself, base64-encoded.
            guard let crypt = String(validating: passwordHash, as: UTF8.self) else {
                throw ImportedHashError(.hashMismatch, "not a bcrypt hash")
            }
            let cost: Int
            do {
                cost = try ImportedPasswordHash.bcryptCost(crypt)
            } catch let error as ImportedHashError where error.code == .malformed {
                throw ImportedHashError(.hashMismatch, "not a bcrypt hash")
            }
            // The time budget of one verification (``ImportedPasswordHash/Bounds/bcryptImportCost``).
            try ImportedPasswordHash.check(cost, in: ImportedPasswordHash.Bounds.bcryptImportCost, "bcrypt cost")
            hash = .bcrypt(crypt)
        case .pbkdf2SHA256, .pbkdfSHA1:
            if let dkLen, passwordHash.count != dkLen {
                throw ImportedHashError(.hashMismatch, "hash length is not --dk-len")
            }
            hash = .pbkdf2(
                algorithm == .pbkdfSHA1 ? .sha1 : .sha256, rounds: rounds ?? 0, saltSeparator: saltSeparator,
                salt: salt, hash: passwordHash)
        case .hmacSHA256, .hmacSHA512, .hmacSHA1, .hmacMD5:
            hash = .hmac(
                algorithm.hmacDigest ?? .sha256, key: hashKey, order: hashInputOrder, saltSeparator: saltSeparator,
                salt: salt, hash: passwordHash)
        case .md5, .sha1, .sha256, .sha512:
            hash = .digest(
                algorithm.plainDigest ?? .sha256, rounds: rounds ?? 0, order: hashInputOrder,
                saltSeparator: saltSeparator, salt: salt, hash: passwordHash)
        }
        try hash.validate()
        return hash
    }

    /// The flags' own checks, before any user is seen.
    private func checkFlags() throws {
        typealias Bounds = ImportedPasswordHash.Bounds
        try ImportedPasswordHash.check(saltSeparator.count, in: Bounds.separatorLength, "--salt-separator length")
        switch algorithm {
        case .scrypt:
            guard !hashKey.isEmpty else { throw ImportedHashError(.missingParameter, "SCRYPT needs --hash-key") }
            try ImportedPasswordHash.check(hashKey.count, in: Bounds.signerKeyLength, "--hash-key length")
            try ImportedPasswordHash.check(try require(rounds, "--rounds"), in: Bounds.firebaseRounds, "--rounds")
            try ImportedPasswordHash.check(try require(memCost, "--mem-cost"), in: Bounds.firebaseMemoryCost, "--mem-cost")
        case .standardScrypt:
            let n = try require(memCost, "--mem-cost")
            let r = try require(blockSize, "--block-size")
            let p = try require(parallelization, "--parallelization")
            let length = try require(dkLen, "--dk-len")
            try ImportedPasswordHash.check(length, in: Bounds.derivedLength, "--dk-len")
            // The same checks a user's hash gets, on a stand-in of the right length.
            try ImportedPasswordHash.standardScrypt(
                n: n, blockSize: r, parallelization: p, saltSeparator: saltSeparator, salt: [],
                hash: [UInt8](repeating: 0, count: length)
            ).validate()
            // And the time budget of one verification, which bounds N · r · p (and so p) more tightly.
            guard 128 * n * r * p <= Bounds.scryptImportWork else {
                throw ImportedHashError(.parameterOutOfRange, "scrypt work (128 * N * r * p) above 64 MiB")
            }
        case .bcrypt:
            break
        case .pbkdf2SHA256, .pbkdfSHA1:
            try ImportedPasswordHash.check(try require(rounds, "--rounds"), in: Bounds.pbkdf2Rounds, "--rounds")
            if let dkLen { try ImportedPasswordHash.check(dkLen, in: Bounds.derivedLength, "--dk-len") }
        case .hmacSHA256, .hmacSHA512, .hmacSHA1, .hmacMD5:
            guard !hashKey.isEmpty else {
                throw ImportedHashError(.missingParameter, "\(algorithm.rawValue) needs --hash-key")
            }
            try ImportedPasswordHash.check(hashKey.count, in: Bounds.keyLength, "--hash-key length")
        case .md5, .sha1, .sha256, .sha512:
            let range = ImportedPasswordHash.digestRounds(algorithm.plainDigest ?? .sha256)
            try ImportedPasswordHash.check(try require(rounds, "--rounds"), in: range, "--rounds")
        }
    }

    private func require(_ value: Int?, _ flag: String) throws -> Int {
        guard let value else { throw ImportedHashError(.missingParameter, "\(algorithm.rawValue) needs \(flag)") }
        return value
    }

    private static func base64(_ text: String, _ flag: String) throws -> [UInt8] {
        guard text.utf8.count <= 4096, let bytes = FirebaseBase64.decode(text) else {
            throw ImportedHashError(.parameterOutOfRange, "\(flag) is not base64")
        }
        return bytes
    }

    private static func number(_ text: String, _ flag: String) throws -> Int {
        guard text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int(text)
        else { throw ImportedHashError(.parameterOutOfRange, "\(flag) is not a whole number") }
        return value
    }
}
