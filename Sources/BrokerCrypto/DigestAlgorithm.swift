import COpenSSL

/// The message digests older password systems hashed with, as OpenSSL provides them. Only for verifying
/// passwords imported from such systems (and for HMAC and PBKDF2 over them); the broker's own hashes are
/// Argon2id, and its own digests SHA-256.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// MD5: 16 bytes.
    case md5
    /// SHA-1: 20 bytes.
    case sha1
    /// SHA-256: 32 bytes.
    case sha256
    /// SHA-512: 64 bytes.
    case sha512

    /// The length of the digest in bytes.
    public var length: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    /// OpenSSL's implementation, fetched from its providers once and kept: `EVP_Digest` given `EVP_sha256()`
    /// fetches the implementation again on every call (OpenSSL 3). The legacy handle when a fetch found none.
    var evp: OpaquePointer? {
        switch self {
        case .md5: Self.fetchedMD5 ?? EVP_md5()
        case .sha1: Self.fetchedSHA1 ?? EVP_sha1()
        case .sha256: Self.fetchedSHA256 ?? EVP_sha256()
        case .sha512: Self.fetchedSHA512 ?? EVP_sha512()
        }
    }

    nonisolated(unsafe) private static let fetchedMD5 = EVP_MD_fetch(nil, "MD5", nil)
    nonisolated(unsafe) private static let fetchedSHA1 = EVP_MD_fetch(nil, "SHA1", nil)
    nonisolated(unsafe) private static let fetchedSHA256 = EVP_MD_fetch(nil, "SHA256", nil)
    nonisolated(unsafe) private static let fetchedSHA512 = EVP_MD_fetch(nil, "SHA512", nil)
}

extension Digest {
    /// The `algorithm` digest of `bytes`, through OpenSSL's `EVP_Digest`.
    public static func hash(_ algorithm: DigestAlgorithm, _ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: algorithm.length)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                EVP_Digest(
                    input.baseAddress, input.count,
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, algorithm.evp, nil)
            }
        }
        // A digest over memory cannot fail short of OpenSSL itself being broken.
        precondition(status == 1 && Int(length) == algorithm.length, "OpenSSL's \(algorithm) failed")
        return output
    }
}

extension HMAC {
    /// HMAC (RFC 2104) over the `algorithm` digest of `message` under `key`, through OpenSSL. Compare tags
    /// with `constantTimeEquals(_:_:)`, never with `==`.
    public static func mac(_ algorithm: DigestAlgorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        // OpenSSL treats a NULL key specially; an empty key is passed as a valid pointer of length zero.
        let keyStorage = key.isEmpty ? [0] : key
        let result = keyStorage.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    COpenSSL.HMAC(
                        algorithm.evp, keyBytes.baseAddress, Int32(key.count),
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil && Int(length) == algorithm.length, "OpenSSL's HMAC-\(algorithm) failed")
        return Array(output.prefix(algorithm.length))
    }
}

extension PBKDF2 {
    /// `length` bytes derived from `password` and `salt` by PBKDF2 over HMAC-`algorithm` with `iterations`
    /// rounds. The caller bounds `iterations` and `length`.
    public static func derive(
        _ algorithm: DigestAlgorithm, password: [UInt8], salt: [UInt8], iterations: Int, length: Int
    ) throws -> [UInt8] {
        try derive(algorithm.evp, password: password, salt: salt, iterations: iterations, length: length)
    }
}
