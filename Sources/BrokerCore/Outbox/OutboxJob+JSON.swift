import BrokerIdentity
public import BrokerModel
import BrokerStorage

extension OutboxJob {
    /// The job as admin listings show it: never its payload.
    public var json: JSONValue {
        [
            "id": .string(id), "kind": .string(kind.rawValue), "uid": uid.map { .string($0.rawValue) } ?? .null,
            "state": .string(state.rawValue), "createdAt": .string(createdAt.rfc3339),
            "attempts": .int(Int64(attempts)), "nextAttemptAt": .string(nextAttemptAt.rfc3339),
            "finishedAt": finishedAt.map { .string($0.rfc3339) } ?? .null, "secret": .bool(secret),
            "lastError": lastError.map(JSONValue.string) ?? .null, "target": eventTarget.map(JSONValue.string) ?? .null,
        ]
    }
}
