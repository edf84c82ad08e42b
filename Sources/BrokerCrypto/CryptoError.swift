/// The one error type of `BrokerCrypto`: a stable `code` to compare on and a human-readable `message`.
///
/// The message describes what went wrong (and, where OpenSSL gave one, its reason string) but never
/// contains key material, signatures or the bytes being signed.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable kind of failure. Callers compare on this, never on `message`.
    public enum Code: String, Sendable {
        /// Key bytes, parameters or a PEM document were malformed, of the wrong type or out of range.
        case invalidKey
        /// OpenSSL refused to produce a signature.
        case signingFailed
        /// A key could not be serialised (for example to PEM).
        case encodingFailed
        /// A key derivation or cipher was given parameters OpenSSL refused, or failed to run.
        case derivationFailed
        /// A sealed box did not open: wrong key, tampered or truncated ciphertext, or other associated data.
        case decryptionFailed
    }

    /// The stable kind of failure.
    public var code: Code
    /// What went wrong, for logs. Never contains key material.
    public var message: String

    /// An error with the given code and message.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `"<code>: <message>"`.
    public var description: String { "\(code.rawValue): \(message)" }
}

extension CryptoError {
    /// An error for a failed OpenSSL call: appends OpenSSL's first queued reason string (never key
    /// material) to `message` and empties the calling thread's OpenSSL error queue.
    static func openSSL(_ code: Code, _ message: String) -> CryptoError {
        if let reason = OpenSSLErrorQueue.drain() {
            return CryptoError(code: code, message: "\(message) (OpenSSL: \(reason))")
        }
        return CryptoError(code: code, message: message)
    }
}

/// Checks the result of an OpenSSL call that returns 1 on success: any other result throws `code`, naming `call`
/// and OpenSSL's first queued reason (the calling thread's error queue is emptied, so a stale error never shows up
/// as the reason for another).
func openSSLCheck(_ result: Int32, _ code: CryptoError.Code, _ call: @autoclosure () -> String) throws(CryptoError) {
    guard result == 1 else { throw CryptoError.openSSL(code, "\(call()) failed") }
}
