import BrokerCrypto

/// Helpers shared by the suites.
enum TestSupport {
    /// The bytes of a lowercase or uppercase hex string; an invalid string is a bug in the test itself.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        precondition(digits.count % 2 == 0, "odd-length hex in a test vector")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                preconditionFailure("invalid hex in a test vector")
            }
            return byte
        }
    }

    /// `bytes` with bit `bit` of byte `index` flipped.
    static func flipping(_ bytes: [UInt8], at index: Int, bit: Int = 0) -> [UInt8] {
        var copy = bytes
        copy[index] ^= UInt8(1 << bit)
        return copy
    }

    /// Runs `make`, stopping the test run with the error if it throws: for keys every test depends on.
    static func fixture<T>(_ make: () throws -> T) -> T {
        do {
            return try make()
        } catch {
            preconditionFailure("test fixture failed: \(error)")
        }
    }
}

/// Keys generated once per test run and shared by the suites.
enum SharedKeys {
    /// A 2048-bit RSA key.
    static let rsa2048: RSAPrivateKey = TestSupport.fixture { try RSAPrivateKey.generate() }
    /// A second, unrelated 2048-bit RSA key.
    static let otherRSA2048: RSAPrivateKey = TestSupport.fixture { try RSAPrivateKey.generate() }
}

extension SharedKeys {
    /// A P-256 key.
    static let p256: P256PrivateKey = TestSupport.fixture { try P256PrivateKey.generate() }
    /// A second, unrelated P-256 key.
    static let otherP256: P256PrivateKey = TestSupport.fixture { try P256PrivateKey.generate() }
}
