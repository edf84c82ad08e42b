import BrokerModel
import Foundation

/// The columns of ``AccountImport`` (schema version 5).
extension SQLBrokerStore {
    /// The import metadata of an accounts row, nil when `imported_at` is NULL.
    static func decodeImport(_ row: SQLRow) throws -> AccountImport? {
        guard let importedAt = row.integer("imported_at") else { return nil }
        let identities = try row.text("import_identities").map(decodeImportIdentities) ?? []
        return AccountImport(
            importedAt: date(importedAt), file: row.text("import_file") ?? "", index: Int(row.integer("import_index") ?? 0),
            otherIdentities: identities)
    }

    /// `[{"provider", "subject", "email"?, "linkedAt"}]`, linkedAt in epoch milliseconds.
    static func importIdentitiesText(_ identities: [Identity]) -> String {
        let values: [JSONValue] = identities.map { identity in
            var members: [String: JSONValue] = [
                "provider": .string(identity.provider.rawValue), "subject": .string(identity.subject),
                "linkedAt": .int(Int64((identity.linkedAt.timeIntervalSince1970 * 1000).rounded())),
            ]
            if let email = identity.email { members["email"] = .string(email) }
            return .object(members)
        }
        return String(decoding: JSONValue.array(values).serialized(), as: UTF8.self)
    }

    private static func decodeImportIdentities(_ text: String) throws -> [Identity] {
        guard let entries = JSONValue.parse(Array(text.utf8))?.arrayValue else {
            throw AccountStoreError(.unavailable, "unreadable import_identities")
        }
        return try entries.map { entry in
            guard let provider = entry["provider"]?.stringValue, let subject = entry["subject"]?.stringValue,
                let linkedAt = entry["linkedAt"]?.intValue
            else { throw AccountStoreError(.unavailable, "unreadable import_identities") }
            return Identity(
                provider: ProviderID(provider), subject: subject, email: entry["email"]?.stringValue, linkedAt: date(linkedAt))
        }
    }
}
