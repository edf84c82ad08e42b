import COpenSSL

/// AES-256 in counter mode (NIST SP 800-38A) through OpenSSL's EVP cipher interface. Encryption and
/// decryption are the same operation.
public enum AESCTR {
    /// `data` XORed with the AES-256-CTR keystream of `key` (32 bytes) from the 16-byte counter block `iv`.
    public static func aes256(key: [UInt8], iv: [UInt8], data: [UInt8]) throws -> [UInt8] {
        guard key.count == 32, iv.count == 16, data.count <= Int(Int32.max) - 16 else {
            throw CryptoError(code: .derivationFailed, message: "AES-256-CTR needs a 32-byte key and a 16-byte IV")
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw CryptoError.openSSL(.derivationFailed, "EVP_CIPHER_CTX_new failed")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        try openSSLCheck(
            EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, iv), .derivationFailed, "AES-256-CTR setup")
        guard !data.isEmpty else { return [] }
        var output = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let base = out.baseAddress,
                EVP_EncryptUpdate(context, base, &written, data, Int32(data.count)) == 1
            else { return 0 }
            return EVP_EncryptFinal_ex(context, base + Int(written), &final)
        }
        guard status == 1, Int(written) + Int(final) == data.count else {
            throw CryptoError.openSSL(.derivationFailed, "AES-256-CTR failed")
        }
        return Array(output.prefix(data.count))
    }
}
