import COpenSSL

/// scrypt (RFC 7914) through OpenSSL's `EVP_PBE_scrypt`.
public enum Scrypt {
    /// The bytes of memory scrypt needs for these parameters (`128 · r · (N + 2) + 128 · r · p`), or nil
    /// when that does not fit in an `Int`.
    public static func memoryNeeded(n: UInt64, r: UInt64, p: UInt64) -> Int? {
        let (blocks, overflow) = n.addingReportingOverflow(2)
        guard !overflow else { return nil }
        let (perBlock, overflowA) = r.multipliedReportingOverflow(by: 128)
        let (v, overflowB) = perBlock.multipliedReportingOverflow(by: blocks)
        let (b, overflowC) = perBlock.multipliedReportingOverflow(by: p)
        let (total, overflowD) = v.addingReportingOverflow(b)
        guard !(overflowA || overflowB || overflowC || overflowD), total <= UInt64(Int.max) else { return nil }
        return Int(total)
    }

    /// `length` bytes derived from `password` and `salt` with cost `n` (a power of two above 1), block
    /// size `r` and parallelism `p`. The caller bounds the parameters; OpenSSL is allowed exactly the memory
    /// they need and refuses anything else (an `n` that is no power of two, a zero `r` or `p`).
    public static func derive(
        password: [UInt8], salt: [UInt8], n: UInt64, r: UInt64, p: UInt64, length: Int
    ) throws -> [UInt8] {
        guard length > 0, let memory = memoryNeeded(n: n, r: r, p: p) else {
            throw CryptoError(code: .derivationFailed, message: "scrypt parameters out of range")
        }
        var output = [UInt8](repeating: 0, count: length)
        // OpenSSL reads a NULL pointer with length zero as "no password"; pass a valid pointer instead.
        let passwordStorage: [UInt8] = password.isEmpty ? [0] : password
        let saltStorage: [UInt8] = salt.isEmpty ? [0] : salt
        let status = passwordStorage.withUnsafeBytes { passwordBytes in
            saltStorage.withUnsafeBytes { saltBytes in
                output.withUnsafeMutableBytes { out in
                    EVP_PBE_scrypt(
                        passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self), password.count,
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), salt.count, n, r, p,
                        UInt64(memory) + 1024, out.baseAddress?.assumingMemoryBound(to: UInt8.self), length)
                }
            }
        }
        try openSSLCheck(status, .derivationFailed, "scrypt")
        return output
    }
}
