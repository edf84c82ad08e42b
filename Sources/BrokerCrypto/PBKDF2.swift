import COpenSSL

/// PBKDF2 (RFC 8018) through OpenSSL's `PKCS5_PBKDF2_HMAC`.
public enum PBKDF2 {
    /// `length` bytes derived from `password` and `salt` by PBKDF2-HMAC-SHA256 with `iterations` rounds.
    /// The caller bounds `iterations` and `length`.
    public static func sha256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) throws -> [UInt8] {
        try derive(EVP_sha256(), password: password, salt: salt, iterations: iterations, length: length)
    }

    static func derive(
        _ digest: OpaquePointer?, password: [UInt8], salt: [UInt8], iterations: Int, length: Int
    ) throws -> [UInt8] {
        guard iterations >= 1, iterations <= Int(Int32.max), length >= 1, length <= Int(Int32.max) else {
            throw CryptoError(code: .derivationFailed, message: "PBKDF2 parameters out of range")
        }
        var output = [UInt8](repeating: 0, count: length)
        let passwordStorage: [UInt8] = password.isEmpty ? [0] : password
        let saltStorage: [UInt8] = salt.isEmpty ? [0] : salt
        let status = passwordStorage.withUnsafeBytes { passwordBytes in
            saltStorage.withUnsafeBytes { saltBytes in
                output.withUnsafeMutableBytes { out in
                    PKCS5_PBKDF2_HMAC(
                        passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(password.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(salt.count),
                        Int32(iterations), digest, Int32(length),
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        try openSSLCheck(status, .derivationFailed, "PBKDF2")
        return output
    }
}
