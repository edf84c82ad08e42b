import BrokerIdentity
public import BrokerModel
import BrokerStorage
import Foundation

extension Account {
    /// The account as the API shows it (`user` in a session body).
    public var json: JSONValue {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            "uid": .string(id.rawValue), "email": optional(email), "emailVerified": .bool(emailVerified),
            "displayName": optional(displayName), "photoUrl": optional(photoURL), "disabled": .bool(disabled),
            "isAnonymous": .bool(isAnonymous), "createdAt": .string(createdAt.rfc3339),
            "lastSignInAt": optional(lastSignInAt?.rfc3339),
            "identities": .array(
                identities.map { identity in
                    .object([
                        "provider": .string(identity.provider.rawValue), "subject": .string(identity.subject),
                        "email": optional(identity.email), "linkedAt": .string(identity.linkedAt.rfc3339),
                    ])
                }),
        ])
    }
}

extension Account {
    /// ``json``'s text written in one pass into `writer` (the same keys, sorted, the same escapes), with no
    /// ``JSONValue`` tree in between: the account of every session body and of `GET /v1/me`.
    public func writeJSON(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("createdAt")
        writer.string(createdAt.rfc3339)
        writer.key("disabled")
        writer.bool(disabled)
        writer.key("displayName")
        writer.string(displayName)
        writer.key("email")
        writer.string(email)
        writer.key("emailVerified")
        writer.bool(emailVerified)
        writer.key("identities")
        writer.beginArray()
        for identity in identities {
            writer.beginObject()
            writer.key("email")
            writer.string(identity.email)
            writer.key("linkedAt")
            writer.string(identity.linkedAt.rfc3339)
            writer.key("provider")
            writer.string(identity.provider.rawValue)
            writer.key("subject")
            writer.string(identity.subject)
            writer.endObject()
        }
        writer.endArray()
        writer.key("isAnonymous")
        writer.bool(isAnonymous)
        writer.key("lastSignInAt")
        writer.string(lastSignInAt?.rfc3339)
        writer.key("photoUrl")
        writer.string(photoURL)
        writer.key("uid")
        writer.string(id.rawValue)
        writer.endObject()
    }

    /// ``json``'s text, written in one pass (``writeJSON(into:)``).
    public var jsonText: JSONText {
        var writer = JSONWriter(capacity: 512)
        writeJSON(into: &writer)
        return JSONText(writer.bytes)
    }
}

extension Account {
    /// The account as administrators see it: the user plus its custom claims, its origin (`signup`, a
    /// provider's id, `import`; null for accounts stored before origins were kept) and, for an imported
    /// account, `import`: when, from which file and index, and the identities kept under their original
    /// provider names (never in `identities`, never used to sign in); `disabledBy`, the provider whose "the user
    /// left" event disabled the account (its next sign-in there enables it again), null otherwise;
    /// `signInMethods`, the providers of its identities and `password` when it has a usable one.
    public var adminJSON: JSONValue {
        guard case .object(var members) = json else { return json }
        members["disabledBy"] = disabledBy.map { .string($0.rawValue) } ?? .null
        members["customClaims"] = customClaims.flatMap { JSONValue.parse(Array($0.utf8)) } ?? .null
        members["origin"] = origin.map { .string($0.rawValue) } ?? .null
        if let phoneNumber { members["phoneNumber"] = .string(phoneNumber) }
        members["import"] =
            imported.map { imported in
                .object([
                    "importedAt": .string(imported.importedAt.rfc3339), "file": .string(imported.file),
                    "index": .int(Int64(imported.index)),
                    "identities": .array(
                        imported.otherIdentities.map { identity in
                            .object([
                                "provider": .string(identity.provider.rawValue), "subject": .string(identity.subject),
                                "email": identity.email.map(JSONValue.string) ?? .null,
                                "linkedAt": .string(identity.linkedAt.rfc3339),
                            ])
                        }),
                ])
            } ?? .null
        members["identities"] = .array(identities.map(\.adminJSON))
        // How it signs in, `password` included, as the CLI's PROVIDERS column and the console's Users page show it.
        members["signInMethods"] = .array(LinkingPolicy.signInMethods(of: self).map(JSONValue.string))
        return .object(members)
    }
}
