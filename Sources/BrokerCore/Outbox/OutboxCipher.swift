public import BrokerCrypto
public import BrokerModel
import Foundation

/// Encrypts secret outbox payloads at rest with AES-256-GCM under `BROKER_ENCRYPTION_KEY` (32 bytes,
/// base64) or the file named by `BROKER_ENCRYPTION_KEY_FILE`. The job id is the associated data, so a sealed
/// payload cannot be moved to another job.
public struct OutboxCipher: Sendable {
    let key: AESGCMKey

    /// Wraps a key.
    public init(key: AESGCMKey) { self.key = key }

    /// The key from `environment`: nil when neither variable is set; a ``ConfigError`` naming the variable
    /// (never its value) when it is unreadable or not 32 bytes of base64.
    public static func fromEnvironment(_ environment: [String: String]) throws -> OutboxCipher? {
        let inline = environment["BROKER_ENCRYPTION_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let file = environment["BROKER_ENCRYPTION_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let (variable, text): (String, String)
        if let inline {
            (variable, text) = ("BROKER_ENCRYPTION_KEY", inline)
        } else if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigError(field: "BROKER_ENCRYPTION_KEY_FILE", "cannot read \(file)")
            }
            (variable, text) = ("BROKER_ENCRYPTION_KEY_FILE", String(decoding: data, as: UTF8.self))
        } else {
            return nil
        }
        do {
            return OutboxCipher(key: try AESGCMKey(base64: text))
        } catch {
            throw ConfigError(field: variable, "must be 32 bytes, base64")
        }
    }

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
