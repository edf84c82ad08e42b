import COpenSSL

/// Message digests.
public enum Digest {
    /// SHA-256 fetched from OpenSSL's providers once and kept: `EVP_Digest` given `EVP_sha256()` fetches the
    /// implementation again on every call (OpenSSL 3). Nil only if no provider has SHA-256, and then every call
    /// passes `EVP_sha256()` as before.
    nonisolated(unsafe) private static let sha256Implementation = EVP_MD_fetch(nil, "SHA256", nil)

    /// The SHA-256 digest (32 bytes) of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                EVP_Digest(
                    input.baseAddress, input.count,
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                    sha256Implementation ?? EVP_sha256(), nil)
            }
        }
        // SHA-256 over memory cannot fail short of OpenSSL itself being broken; stop rather than return
        // a digest of zeros.
        precondition(status == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return output
    }

    /// The SHA-256 digest (32 bytes) of `text`'s UTF-8 bytes.
    public static func sha256(_ text: String) -> [UInt8] {
        sha256(Array(text.utf8))
    }
}
