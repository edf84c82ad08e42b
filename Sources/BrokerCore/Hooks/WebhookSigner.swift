import BrokerCrypto
import BrokerModel
public import Foundation

/// A Standard Webhooks secret (`whsec_<base64>`): the HMAC key the broker signs its hook calls and event
/// deliveries with, and the receiver verifies them with (contract section 16).
public struct WebhookSecret: Sendable, Equatable {
    /// The key bytes (the base64 after `whsec_`).
    public let key: [UInt8]

    /// The prefix of the secret's text form.
    public static let prefix = "whsec_"

    /// The fewest key bytes a configured secret may have (contract section 16: at least 16 random bytes).
    public static let minimumKeyBytes = 16

    /// Parses `text` (`whsec_<base64>`, surrounding whitespace ignored), or nil when it is not one.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix), let key = Base64.decode(String(trimmed.dropFirst(Self.prefix.count))),
            !key.isEmpty
        else { return nil }
        self.key = key
    }

    /// Reads the secret from the file at `path` for the config field `field`, or throws a ``ConfigError`` naming it.
    public init(file path: String, field: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: field, "cannot read \(path)")
        }
        guard let secret = WebhookSecret(text: String(decoding: data, as: UTF8.self)) else {
            throw ConfigError(field: field, "\(path) must hold a secret of the form whsec_<base64>")
        }
        // A short key is guessable offline from one signed call: refused at check-config and serve alike.
        guard secret.key.count >= Self.minimumKeyBytes else {
            throw ConfigError(
                field: field,
                "\(path) holds a \(secret.key.count)-byte key; a secret needs at least \(Self.minimumKeyBytes) random "
                    + "bytes (whsec_ followed by their base64, e.g. from `openssl rand -base64 32`)")
        }
        self = secret
    }
}

/// Signs a webhook as Standard Webhooks does: `webhook-id`, `webhook-timestamp` (Unix seconds) and
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. The one place the broker signs what it
/// sends to an app: blocking hooks and event deliveries alike.
public struct WebhookSigner: Sendable {
    /// The secret signed with.
    public let secret: WebhookSecret

    /// Creates a signer.
    public init(secret: WebhookSecret) {
        self.secret = secret
    }

    /// The `webhook-signature` value of `body` sent with `id` at `timestamp` (Unix seconds): `v1,<base64>`.
    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Base64.encode(HMAC.sha256(key: secret.key, message: message))
    }

    /// The three headers of `body` sent with `id` at `date` (its whole second), plus the JSON content type.
    public func headers(id: String, date: Date, body: [UInt8]) -> [(name: String, value: String)] {
        let timestamp = Int64(date.timeIntervalSince1970.rounded(.down))
        return [
            ("content-type", "application/json"),
            ("webhook-id", id),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", signature(id: id, timestamp: timestamp, body: body)),
        ]
    }

    /// A fresh message id (`msg_` and 24 random base64url characters): the same for every attempt of one delivery.
    public static func newMessageID() -> String {
        "msg_" + Base64URL.encode(SecureRandom.bytes(18))
    }
}
