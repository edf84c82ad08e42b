import BrokerCrypto
import CCrypt

/// bcrypt verification through libxcrypt's `crypt_r` (never a hand-written Blowfish).
enum Bcrypt {
    /// Whether `password` hashes to the crypt string `crypt` (`$2b$…`). The caller has bounded its cost.
    /// A password holding a NUL byte never matches: `crypt_r` would silently cut it there.
    static func verify(_ password: [UInt8], against crypt: String) -> Bool {
        guard !password.contains(0) else { return false }
        // struct crypt_data is ~32 KiB: on the heap, zeroed as crypt_r requires before first use.
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
            data.deallocate()
        }
        UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        let phrase = password.map { CChar(bitPattern: $0) } + [0]
        guard let output = crypt_r(phrase, crypt, data) else { return false }
        let computed = Array(String(cString: output).utf8)
        // libxcrypt reports failure with a string starting with "*", which never equals a bcrypt hash.
        guard computed.first != UInt8(ascii: "*") else { return false }
        return constantTimeEquals(computed, Array(crypt.utf8))
    }
}
