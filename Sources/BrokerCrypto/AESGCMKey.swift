import COpenSSL

/// An AES-256-GCM key (OpenSSL EVP) that seals and opens byte strings.
///
/// A sealed box is `nonce (12 bytes) || ciphertext || tag (16 bytes)`, with a fresh random nonce per seal.
/// The associated data is authenticated, not encrypted: opening with other associated data fails, so a box
/// cannot be moved from one record to another.
public struct AESGCMKey: Sendable {
    /// The key's length in bytes.
    public static let keyLength = 32
    /// The nonce's length in bytes.
    public static let nonceLength = 12
    /// The tag's length in bytes.
    public static let tagLength = 16

    private let key: [UInt8]

    /// Wraps 32 key bytes; any other length is `invalidKey`.
    public init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.keyLength else {
            throw CryptoError(code: .invalidKey, message: "an AES-256-GCM key has 32 bytes, not \(bytes.count)")
        }
        key = bytes
    }

    /// Parses a base64 key (standard alphabet, padded), trimming surrounding whitespace and line breaks.
    public init(base64 text: String) throws(CryptoError) {
        let trimmed = text.trimmingWhitespace()
        guard let bytes = Base64.decode(trimmed) else {
            throw CryptoError(code: .invalidKey, message: "the key is not base64")
        }
        try self.init(bytes: bytes)
    }

    /// Encrypts `plaintext` with a fresh random nonce; returns `nonce || ciphertext || tag`.
    public func seal(_ plaintext: [UInt8], authenticating associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let nonce = SecureRandom.bytes(Self.nonceLength)
        guard let context = EVP_CIPHER_CTX_new() else {
            throw CryptoError.openSSL(.encodingFailed, "EVP_CIPHER_CTX_new failed")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        try openSSLCheck(
            EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce), .encodingFailed, "EVP_EncryptInit_ex")
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try openSSLCheck(
                EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)),
                .encodingFailed, "EVP_EncryptUpdate (associated data)")
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        if !plaintext.isEmpty {
            try openSSLCheck(
                EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)),
                .encodingFailed, "EVP_EncryptUpdate")
        }
        var finalLength: Int32 = 0
        let finished = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &finalLength)
        }
        try openSSLCheck(finished, .encodingFailed, "EVP_EncryptFinal_ex")
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        try openSSLCheck(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), &tag),
            .encodingFailed, "EVP_CTRL_GCM_GET_TAG")
        return nonce + ciphertext[0..<Int(written + finalLength)] + tag
    }

    /// Decrypts a box made by ``seal(_:authenticating:)``; `decryptionFailed` when it was tampered with, is
    /// truncated, or was sealed under another key or other associated data.
    public func open(_ box: [UInt8], authenticating associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard box.count >= Self.nonceLength + Self.tagLength else {
            throw CryptoError(code: .decryptionFailed, message: "the sealed box is too short")
        }
        let nonce = Array(box[0..<Self.nonceLength])
        let ciphertext = Array(box[Self.nonceLength..<(box.count - Self.tagLength)])
        var tag = Array(box[(box.count - Self.tagLength)...])
        guard let context = EVP_CIPHER_CTX_new() else {
            throw CryptoError.openSSL(.decryptionFailed, "EVP_CIPHER_CTX_new failed")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        try openSSLCheck(
            EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce), .decryptionFailed, "EVP_DecryptInit_ex")
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try openSSLCheck(
                EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)),
                .decryptionFailed, "EVP_DecryptUpdate (associated data)")
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        if !ciphertext.isEmpty {
            try openSSLCheck(
                EVP_DecryptUpdate(context, &plaintext, &written, ciphertext, Int32(ciphertext.count)),
                .decryptionFailed, "EVP_DecryptUpdate")
        }
        try openSSLCheck(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), &tag),
            .decryptionFailed, "EVP_CTRL_GCM_SET_TAG")
        var finalLength: Int32 = 0
        let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &finalLength)
        }
        guard verified == 1 else {
            OpenSSLErrorQueue.clear()
            throw CryptoError(code: .decryptionFailed, message: "the sealed box does not authenticate")
        }
        return Array(plaintext[0..<Int(written + finalLength)])
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var slice = Substring(self)
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
