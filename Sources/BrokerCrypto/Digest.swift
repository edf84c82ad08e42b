import COpenSSL

/// Message digests.
public enum Digest {
    /// The SHA-256 digest (32 bytes) of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        hash(.sha256, bytes)
    }

    /// The SHA-256 digest (32 bytes) of `text`'s UTF-8 bytes.
    public static func sha256(_ text: String) -> [UInt8] {
        sha256(Array(text.utf8))
    }
}
