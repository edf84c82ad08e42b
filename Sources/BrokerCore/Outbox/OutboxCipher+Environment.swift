import BrokerCrypto
public import BrokerModel
import Foundation

extension OutboxCipher {
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
}
