import BrokerIdentity
public import BrokerModel
import BrokerStorage

extension PasskeyRecord {
    /// `{"id", "name", "createdAt", "lastUsedAt", "backedUp"}`, as its owner and administrators see it: never the
    /// public key or the user handle.
    public var json: JSONValue {
        [
            "id": .string(id), "name": name.map(JSONValue.string) ?? .null, "createdAt": .string(createdAt.rfc3339),
            "lastUsedAt": lastUsedAt.map { .string($0.rfc3339) } ?? .null, "backedUp": .bool(backedUp),
        ]
    }
}
