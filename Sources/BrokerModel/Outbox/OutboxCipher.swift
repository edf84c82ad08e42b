public import BrokerCrypto
import Foundation

/// Encrypts secret outbox payloads at rest with AES-256-GCM under `BROKER_ENCRYPTION_KEY` (32 bytes,
/// base64) or the file named by `BROKER_ENCRYPTION_KEY_FILE`. The job id is the associated data, so a sealed
/// payload cannot be moved to another job.
public struct OutboxCipher: Sendable {
    let key: AESGCMKey

    /// Wraps a key.
    public init(key: AESGCMKey) { self.key = key }

    /// `job` with its payload sealed, when it holds a secret and is not sealed yet; otherwise unchanged.
    public func sealing(_ job: OutboxJob) throws -> OutboxJob {
        guard job.secret, !job.sealed else { return job }
        var sealed = job
        sealed.payload = try key.seal(job.payload, authenticating: Array(job.id.utf8))
        sealed.sealed = true
        return sealed
    }

    /// The plain payload of a sealed job; `CryptoError(.decryptionFailed)` when it does not open.
    public func opening(_ job: OutboxJob) throws -> [UInt8] {
        guard job.sealed else { return job.payload }
        return try key.open(job.payload, authenticating: Array(job.id.utf8))
    }
}
