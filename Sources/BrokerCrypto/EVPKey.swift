import COpenSSL

/// An owned OpenSSL 3 `EVP_PKEY`, freed in `deinit`, and the operations the key types share: building
/// keys from parameters, generating, parameter access, PEM in and out, and one-shot SHA-256 sign and
/// verify. Every operation leaves OpenSSL's error queue empty.
///
/// Signing and verifying start from a digest context initialised once per key and direction (SHA-256, this
/// key) and copied for each call: OpenSSL 3.0's `EVP_DigestSignInit` and `EVP_DigestVerifyInit` fetch the digest
/// and signature implementations and walk the provider's name map on every call, which costs about as much as
/// an RSA-2048 verification; copying an initialised context (`EVP_MD_CTX_copy_ex`) skips all of that.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never mutated after construction, and OpenSSL 3 documents
/// that a key may be used concurrently from many threads for signing and verifying as long as nobody
/// modifies it. Each operation works on its own copy of a template context; the templates are created and
/// copied only while holding `lock` (RSA blinding is thread-safe inside OpenSSL). Temporary handles are freed
/// with `defer` in the function that made them.
final class EVPKey: @unchecked Sendable {
    /// The `EVP_PKEY`, owned by this object.
    let pointer: OpaquePointer
    /// Guards `signTemplate` and `verifyTemplate` (an OpenSSL `CRYPTO_RWLOCK`, used exclusively).
    private let lock: UnsafeMutableRawPointer?
    /// `EVP_MD_CTX`s initialised for SHA-256 signing and verifying with this key; made on first use, copied
    /// for every operation, never used directly.
    private var signTemplate: OpaquePointer?
    private var verifyTemplate: OpaquePointer?

    /// Takes ownership of `pointer` (one reference), which is freed when this object goes away.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
        lock = CRYPTO_THREAD_lock_new()
    }

    deinit {
        EVP_MD_CTX_free(signTemplate)
        EVP_MD_CTX_free(verifyTemplate)
        CRYPTO_THREAD_lock_free(lock)
        EVP_PKEY_free(pointer)
    }

    /// Whether the key is of OpenSSL algorithm `name` ("RSA", "EC").
    func isA(_ name: String) -> Bool {
        EVP_PKEY_is_a(pointer, name) == 1
    }

    /// The key's size in bits (the modulus for RSA, the field for EC).
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// `EVP_PKEY_PUBLIC_KEY` (`OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY`),
    /// spelled out because the composite macro does not import into Swift.
    static let publicKeySelection: Int32 = 0x84 | 0x02

    /// One parameter for `fromPublicParameters`. Names and string values are `StaticString`s because
    /// `OSSL_PARAM_BLD` keeps the pointers it is given, without copying, until `OSSL_PARAM_BLD_to_param`.
    enum Parameter {
        /// A big integer, such as RSA's "n" and "e".
        case integer(StaticString, BigNum)
        /// A UTF-8 string, such as EC's "group".
        case text(StaticString, StaticString)
        /// An octet string, such as EC's "pub" (an encoded point).
        case octets(StaticString, [UInt8])
    }

    /// A public key of algorithm `algorithm` ("RSA", "EC") built by `EVP_PKEY_fromdata` from
    /// `parameters`.
    static func fromPublicParameters(algorithm: String, _ parameters: [Parameter]) throws -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else {
            throw CryptoError.openSSL(.invalidKey, "could not allocate a parameter builder")
        }
        defer { OSSL_PARAM_BLD_free(builder) }
        // Octet buffers must outlive OSSL_PARAM_BLD_to_param, which is where they are copied.
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer { buffers.forEach { $0.deallocate() } }
        for parameter in parameters {
            switch parameter {
            case .integer(let name, let number):
                try openSSLCheck(
                    OSSL_PARAM_BLD_push_BN(builder, name.cString, number.pointer), .invalidKey,
                    "OSSL_PARAM_BLD_push_BN (\(algorithm) \(name))")
            case .text(let name, let value):
                try openSSLCheck(
                    OSSL_PARAM_BLD_push_utf8_string(builder, name.cString, value.cString, 0), .invalidKey,
                    "OSSL_PARAM_BLD_push_utf8_string (\(algorithm) \(name))")
            case .octets(let name, let bytes):
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
                buffers.append(buffer)
                buffer.copyBytes(from: bytes)
                try openSSLCheck(
                    OSSL_PARAM_BLD_push_octet_string(builder, name.cString, buffer.baseAddress, bytes.count),
                    .invalidKey, "OSSL_PARAM_BLD_push_octet_string (\(algorithm) \(name))")
            }
        }
        guard let params = withExtendedLifetime(parameters, { OSSL_PARAM_BLD_to_param(builder) }) else {
            throw CryptoError.openSSL(.invalidKey, "could not encode the \(algorithm) key parameters")
        }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw CryptoError.openSSL(.invalidKey, "OpenSSL has no \(algorithm) implementation")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try openSSLCheck(EVP_PKEY_fromdata_init(context), .invalidKey, "EVP_PKEY_fromdata_init (\(algorithm))")
        var key: OpaquePointer?
        let status = EVP_PKEY_fromdata(context, &key, publicKeySelection, params)
        return try owned(&key, status, .invalidKey, "EVP_PKEY_fromdata (the \(algorithm) public key parameters)")
    }

    /// A freshly generated key of algorithm `algorithm`; `configure` sets its size or curve on the
    /// keygen context.
    static func generate(
        algorithm: String, _ configure: (_ context: OpaquePointer) -> Bool
    ) throws -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw CryptoError.openSSL(.invalidKey, "OpenSSL has no \(algorithm) implementation")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try openSSLCheck(EVP_PKEY_keygen_init(context), .invalidKey, "EVP_PKEY_keygen_init (\(algorithm))")
        guard configure(context) else {
            throw CryptoError.openSSL(.invalidKey, "\(algorithm) key generation parameters were refused")
        }
        var key: OpaquePointer?
        let status = EVP_PKEY_generate(context, &key)
        return try owned(&key, status, .invalidKey, "EVP_PKEY_generate (\(algorithm))")
    }

    /// The key an `EVP_PKEY`-making call left in `key`, owned, when `result` (the status that call returned,
    /// made before this one) is 1; otherwise frees whatever it left and throws `code` naming `call`.
    private static func owned(
        _ key: inout OpaquePointer?, _ result: Int32, _ code: CryptoError.Code, _ call: @autoclosure () -> String
    ) throws(CryptoError) -> EVPKey {
        do throws(CryptoError) {
            try openSSLCheck(result, code, call())
        } catch {
            EVP_PKEY_free(key)
            key = nil
            throw error
        }
        guard let made = key else { throw CryptoError.openSSL(code, "\(call()) returned no key") }
        return EVPKey(owning: made)
    }

    /// Whether OpenSSL's full public-key check (on the curve, right order, sane modulus) accepts the key.
    func passesPublicCheck() -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        return (try? openSSLCheck(EVP_PKEY_public_check(context), .invalidKey, "EVP_PKEY_public_check")) != nil
    }

    /// The private key in the PEM document `pem` (PKCS#8 or a traditional per-algorithm form). The caller
    /// checks its type. Encrypted PEM is refused, never prompted for.
    ///
    /// Literal two-character `\n` sequences (a service-account JSON value pasted without unescaping) are
    /// read as line breaks; base64 and PEM armour never contain a backslash.
    static func privateKey(pem: String) throws -> EVPKey {
        let text = pem.contains("\\n") ? pem.replacingBackslashN() : pem
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count < Int(Int32.max) else {
            throw CryptoError(code: .invalidKey, message: "the PEM document is empty or too large")
        }
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that supplies no passphrase: an encrypted key fails instead of OpenSSL's
            // default callback prompting on the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let key else {
            throw CryptoError.openSSL(.invalidKey, "the PEM document holds no readable, unencrypted private key")
        }
        OpenSSLErrorQueue.clear()
        return EVPKey(owning: key)
    }

    /// The key as an unencrypted PKCS#8 PEM document ("BEGIN PRIVATE KEY").
    func pemPKCS8() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CryptoError.openSSL(.encodingFailed, "could not allocate a memory BIO")
        }
        defer { BIO_free(bio) }
        try openSSLCheck(
            PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil), .encodingFailed,
            "PEM_write_bio_PKCS8PrivateKey")
        // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO).
        var data: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else {
            throw CryptoError.openSSL(.encodingFailed, "the PKCS#8 PEM output was empty")
        }
        let pem = UnsafeRawBufferPointer(start: data, count: length)
        return String(decoding: pem, as: UTF8.self)
    }

    /// The big-endian bytes (no leading zeros) of the key's integer parameter `name`.
    func integerParameter(_ name: String) throws -> [UInt8] {
        var number: OpaquePointer?
        try openSSLCheck(EVP_PKEY_get_bn_param(pointer, name, &number), .invalidKey, "EVP_PKEY_get_bn_param (\(name))")
        guard let number else { throw CryptoError.openSSL(.invalidKey, "the key has no \(name) parameter") }
        defer { BN_free(number) }
        let count = (Int(BN_num_bits(number)) + 7) / 8
        var bytes = [UInt8](repeating: 0, count: count)
        if count > 0 {
            _ = bytes.withUnsafeMutableBufferPointer { BN_bn2bin(number, $0.baseAddress) }
        }
        return bytes
    }

    /// The key's UTF-8 string parameter `name` (for example an EC key's "group").
    func stringParameter(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        let status = buffer.withUnsafeMutableBufferPointer {
            EVP_PKEY_get_utf8_string_param(pointer, name, $0.baseAddress, $0.count, &length)
        }
        guard (try? openSSLCheck(status, .invalidKey, "EVP_PKEY_get_utf8_string_param (\(name))")) != nil else {
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What a template context is for.
    private enum Purpose {
        case sign
        case verify
    }

    /// A new digest context ready for one SHA-256 signature (or verification) with this key: a copy of the
    /// key's template, made on first use. Marked `EVP_MD_CTX_FLAG_FINALISE`, so the final call works on it
    /// directly instead of on yet another copy. Throws `code` if OpenSSL refuses; the caller frees the context.
    private func context(for purpose: Purpose, _ code: CryptoError.Code) throws(CryptoError) -> OpaquePointer {
        guard let lock, let copy = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(code, "EVP_MD_CTX_new failed")
        }
        do throws(CryptoError) {
            try openSSLCheck(CRYPTO_THREAD_write_lock(lock), code, "CRYPTO_THREAD_write_lock")
            defer { CRYPTO_THREAD_unlock(lock) }
            let template: OpaquePointer
            if let existing = purpose == .sign ? signTemplate : verifyTemplate {
                template = existing
            } else {
                template = try makeTemplate(purpose, code)
            }
            try openSSLCheck(EVP_MD_CTX_copy_ex(copy, template), code, "EVP_MD_CTX_copy_ex")
        } catch {
            EVP_MD_CTX_free(copy)
            throw error
        }
        EVP_MD_CTX_set_flags(copy, EVP_MD_CTX_FLAG_FINALISE)
        return copy
    }

    /// Makes and keeps the template context for `purpose`; called with `lock` held, once per key and purpose.
    private func makeTemplate(_ purpose: Purpose, _ code: CryptoError.Code) throws(CryptoError) -> OpaquePointer {
        guard let made = EVP_MD_CTX_new() else { throw CryptoError.openSSL(code, "EVP_MD_CTX_new failed") }
        do throws(CryptoError) {
            switch purpose {
            case .sign:
                try openSSLCheck(
                    EVP_DigestSignInit(made, nil, EVP_sha256(), nil, pointer), code, "EVP_DigestSignInit")
            case .verify:
                try openSSLCheck(
                    EVP_DigestVerifyInit(made, nil, EVP_sha256(), nil, pointer), code, "EVP_DigestVerifyInit")
            }
        } catch {
            EVP_MD_CTX_free(made)
            throw error
        }
        if purpose == .sign { signTemplate = made } else { verifyTemplate = made }
        return made
    }

    /// A signature over `message` with this key and SHA-256, in the key type's native encoding (PKCS#1 v1.5
    /// for RSA, DER for ECDSA).
    func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        let context = try context(for: .sign, .signingFailed)
        defer { EVP_MD_CTX_free(context) }
        // The largest signature the key makes (the modulus for RSA, the longest DER for ECDSA).
        var length = Int(EVP_PKEY_get_size(pointer))
        guard length > 0 else {
            throw CryptoError.openSSL(.signingFailed, "could not size the signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        try message.withUnsafeBytes { input in
            try signature.withUnsafeMutableBufferPointer { output in
                try openSSLCheck(
                    EVP_DigestSignUpdate(context, input.baseAddress, input.count), .signingFailed,
                    "EVP_DigestSignUpdate")
                try openSSLCheck(
                    EVP_DigestSignFinal(context, output.baseAddress, &length), .signingFailed, "EVP_DigestSignFinal")
            }
        }
        guard length > 0, length <= signature.count else {
            throw CryptoError.openSSL(.signingFailed, "EVP_DigestSignFinal gave a signature of no or too many bytes")
        }
        signature.removeLast(signature.count - length)
        return signature
    }

    /// Whether `signature` (in the key type's native encoding) is a valid SHA-256 signature of `message`
    /// under this key. Any failure is `false`.
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard !signature.isEmpty else { return false }
        // Every refusal, a bad signature included, goes through the funnel, which empties the error queue.
        do {
            let context = try context(for: .verify, .invalidKey)
            defer { EVP_MD_CTX_free(context) }
            try signature.withUnsafeBufferPointer { sig in
                try message.withUnsafeBytes { input in
                    try openSSLCheck(
                        EVP_DigestVerifyUpdate(context, input.baseAddress, input.count), .invalidKey,
                        "EVP_DigestVerifyUpdate")
                    try openSSLCheck(
                        EVP_DigestVerifyFinal(context, sig.baseAddress, sig.count), .invalidKey,
                        "EVP_DigestVerifyFinal")
                }
            }
            return true
        } catch {
            return false
        }
    }
}

extension String {
    /// The string with every two-character `\n` sequence turned into a line break.
    fileprivate func replacingBackslashN() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var previousWasBackslash = false
        for byte in utf8 {
            if previousWasBackslash {
                previousWasBackslash = false
                if byte == UInt8(ascii: "n") {
                    out.append(0x0A)
                    continue
                }
                out.append(UInt8(ascii: "\\"))
            }
            if byte == UInt8(ascii: "\\") {
                previousWasBackslash = true
                continue
            }
            out.append(byte)
        }
        if previousWasBackslash { out.append(UInt8(ascii: "\\")) }
        return String(decoding: out, as: UTF8.self)
    }
}

extension StaticString {
    /// The literal as a NUL-terminated C string, valid for the life of the program.
    fileprivate var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

extension EVPKey {
    /// Whether `signature` verifies over `message` with a key type that hashes inside its scheme (Ed25519), in one
    /// `EVP_DigestVerify` call with no digest named.
    func verifyOneShot(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        do {
            try openSSLCheck(
                EVP_DigestVerifyInit(context, nil, nil, nil, pointer), .invalidKey, "EVP_DigestVerifyInit (one-shot)")
            try openSSLCheck(
                EVP_DigestVerify(context, signature, signature.count, message, message.count), .invalidKey,
                "EVP_DigestVerify")
            return true
        } catch {
            return false
        }
    }

    /// A signature over `message` made in one `EVP_DigestSign` call with no digest named (Ed25519).
    func signOneShot(_ message: [UInt8], maximumLength: Int) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL(.signingFailed, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        try openSSLCheck(
            EVP_DigestSignInit(context, nil, nil, nil, pointer), .signingFailed, "EVP_DigestSignInit (one-shot)")
        var signature = [UInt8](repeating: 0, count: maximumLength)
        var length = maximumLength
        try openSSLCheck(
            signature.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, message, message.count)
            }, .signingFailed, "EVP_DigestSign")
        return Array(signature.prefix(length))
    }
}
