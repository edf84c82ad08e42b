import COpenSSL

/// Conversion between OpenSSL's DER-encoded ECDSA signatures (`ECDSA-Sig-Value`) and the JOSE form
/// (RFC 7518 section 3.4): `r || s`, each left-padded to the curve's coordinate size.
enum ECDSASignature {
    /// The JOSE form of the DER signature `der`, each half `coordinateSize` bytes.
    static func raw(fromDER der: [UInt8], coordinateSize: Int) throws -> [UInt8] {
        try der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                throw CryptoError.openSSL(.signingFailed, "OpenSSL produced an unreadable ECDSA signature")
            }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            guard let r, let s else {
                throw CryptoError.openSSL(.signingFailed, "the ECDSA signature has no r or s")
            }
            var output = [UInt8](repeating: 0, count: coordinateSize * 2)
            let written = output.withUnsafeMutableBufferPointer { out in
                (
                    BN_bn2binpad(r, out.baseAddress, Int32(coordinateSize)),
                    BN_bn2binpad(s, out.baseAddress.map { $0 + coordinateSize }, Int32(coordinateSize))
                )
            }
            guard written == (Int32(coordinateSize), Int32(coordinateSize)) else {
                throw CryptoError.openSSL(.signingFailed, "an ECDSA signature half is longer than the curve allows")
            }
            return output
        }
    }

    /// The DER form of the JOSE signature `raw`, or nil when `raw` is not `2 * coordinateSize` bytes or
    /// cannot be encoded.
    static func der(fromRaw raw: [UInt8], coordinateSize: Int) -> [UInt8]? {
        guard raw.count == coordinateSize * 2 else { return nil }
        let halves = raw.withUnsafeBufferPointer { buffer in
            (
                BN_bin2bn(buffer.baseAddress, Int32(coordinateSize), nil),
                BN_bin2bn(buffer.baseAddress.map { $0 + coordinateSize }, Int32(coordinateSize), nil)
            )
        }
        guard let r = halves.0, let s = halves.1, let signature = ECDSA_SIG_new() else {
            BN_free(halves.0)
            BN_free(halves.1)
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        // On success ECDSA_SIG_set0 takes ownership of r and s; on failure they are still ours.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            OpenSSLErrorQueue.clear()
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return output
    }
}
