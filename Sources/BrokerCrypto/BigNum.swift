import COpenSSL

/// An owned OpenSSL `BIGNUM`, freed in `deinit`. Used only as a short-lived temporary while building a
/// key or a signature, so it is not `Sendable`.
final class BigNum {
    /// The `BIGNUM`, owned by this object.
    let pointer: OpaquePointer

    /// The non-negative integer whose big-endian bytes are `bytes`.
    init(bigEndian bytes: [UInt8]) throws {
        guard bytes.count < Int(Int32.max) else {
            throw CryptoError(code: .invalidKey, message: "integer too large")
        }
        let made = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let made else {
            throw CryptoError.openSSL(.invalidKey, "could not allocate a big number")
        }
        pointer = made
    }

    /// Takes ownership of `pointer`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        BN_free(pointer)
    }
}
