import BrokerCrypto
import Foundation

extension OutboxCipher {
    /// `secret` sealed with AES-256-GCM, as base64, bound to `context` (associated data: a box sealed for one
    /// identity does not open for another).
    public func seal(_ secret: String, context: String) throws -> String {
        Base64.encode(try key.seal(Array(secret.utf8), authenticating: Array(context.utf8)))
    }

    /// The secret in a box made by ``seal(_:context:)`` for `context`; `CryptoError(.decryptionFailed)` when it
    /// does not open (another key, another context, a changed box).
    public func open(_ box: String, context: String) throws -> String {
        guard let bytes = Base64.decode(box) else {
            throw CryptoError(code: .decryptionFailed, message: "the sealed secret is not base64")
        }
        return String(decoding: try key.open(bytes, authenticating: Array(context.utf8)), as: UTF8.self)
    }
}
