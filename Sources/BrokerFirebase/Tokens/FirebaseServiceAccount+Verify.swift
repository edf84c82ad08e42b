import BrokerCore
import BrokerCrypto

extension FirebaseServiceAccount {
    /// Whether `signature` is this service account's RS256 signature of `message` (a custom token's signing
    /// input), checked with the public half of `private_key`.
    public func verifies(signature: [UInt8], message: [UInt8]) -> Bool {
        privateKey.publicKey.verifySHA256(signature: signature, message: message)
    }
}
