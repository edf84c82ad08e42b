import COpenSSL

/// A file of PEM certificates (a CA bundle such as `mail.caFile`), checked with OpenSSL: every
/// `CERTIFICATE` block in it must parse as an X.509 certificate. Only the count is kept; the bytes are handed to
/// libcurl, which reads the file itself.
public struct PEMCertificateBundle: Sendable {
    /// How many certificates the bundle holds (at least one).
    public let count: Int

    /// The largest bundle accepted (Debian's whole system bundle is about 220 KB).
    public static let maxBytes = 4 * 1024 * 1024

    /// Parses `pem`; throws ``CryptoError`` (`.invalidKey`) when it holds no certificate, a block that is not
    /// one, or more than ``maxBytes``.
    public init(pem: [UInt8]) throws {
        guard !pem.isEmpty, pem.count <= Self.maxBytes else {
            throw CryptoError(code: .invalidKey, message: "the certificate file is empty or larger than 4 MiB")
        }
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        let blocks = Self.occurrences(of: marker, in: pem)
        guard blocks > 0 else {
            throw CryptoError(
                code: .invalidKey, message: "the file holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        OpenSSLErrorQueue.clear()
        let parsed: Int = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return -1 }
            defer { BIO_free(bio) }
            var count = 0
            // Bounded by the blocks counted above: each successful read consumes one block.
            for _ in 0..<blocks {
                guard let certificate = PEM_read_bio_X509(bio, nil, { _, _, _, _ in -1 }, nil) else { break }
                X509_free(certificate)
                count += 1
            }
            return count
        }
        guard parsed == blocks else {
            throw CryptoError.openSSL(
                .invalidKey,
                "certificate \(max(parsed, 0) + 1) of \(blocks) in the file is not a readable X.509 certificate")
        }
        OpenSSLErrorQueue.clear()
        count = parsed
    }

    /// Non-overlapping occurrences of `needle` in `haystack`.
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard !needle.isEmpty, haystack.count >= needle.count else { return 0 }
        var count = 0
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], Array(haystack[index..<index + needle.count]) == needle {
                count += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return count
    }
}
