public import Foundation

/// A passkey of the signed-in account, as `GET /v1/me/passkeys` lists it (contract section 15): never its key.
public struct Passkey: Sendable, Equatable, Codable, Identifiable {
    /// The credential id (base64url), for ``BrokerAuth/renamePasskey(id:to:)`` and
    /// ``BrokerAuth/deletePasskey(id:)``.
    public var id: String
    /// The name the user gave it (at most 100 characters), if any.
    public var name: String?
    /// When it was registered.
    public var createdAt: Date?
    /// When it last signed in, if it has.
    public var lastUsedAt: Date?
    /// Whether the authenticator syncs it (iCloud Keychain, Google Password Manager): a lost device does not lose it.
    public var backedUp: Bool

    enum CodingKeys: String, CodingKey { case id, name, createdAt, lastUsedAt, backedUp }

    /// Decodes the contract's `passkey` object (times as RFC 3339 strings).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt).flatMap(RFC3339.date)
        lastUsedAt = try container.decodeIfPresent(String.self, forKey: .lastUsedAt).flatMap(RFC3339.date)
        backedUp = try container.decodeIfPresent(Bool.self, forKey: .backedUp) ?? false
    }

    /// Encodes it as the contract writes it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt.map(RFC3339.string), forKey: .createdAt)
        try container.encode(lastUsedAt.map(RFC3339.string), forKey: .lastUsedAt)
        try container.encode(backedUp, forKey: .backedUp)
    }
}
