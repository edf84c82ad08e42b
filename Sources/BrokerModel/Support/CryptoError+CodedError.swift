public import BrokerCrypto

/// BrokerCrypto's error as a ``CodedError`` (BrokerCrypto sits below BrokerCore and cannot see the protocol): its
/// `message` is the detail, and its own `description` (`code: message`) already has the protocol's shape.
extension CryptoError: CodedError {
    /// The message: what OpenSSL refused, never key material.
    public var detail: String { message }
}

extension CryptoError {
    /// None: a cryptographic failure is internal (``CodedError``).
    public var refusal: Refusal? { nil }
}
