public import Foundation

extension Date {
    /// RFC 3339 in UTC, as the API writes times.
    public var rfc3339: String { RFC3339.format(self) }
}

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

extension SessionTokens {
    /// The contract's session body, written in one pass: the text `JSONValue.serialized()` makes of the object
    /// of `customToken` (when there is one), `expiresIn`, `idToken`, `isNewUser`, `refreshToken` and `user`.
    public func body(user: Account, isNewUser: Bool) -> JSONText {
        var writer = JSONWriter(capacity: 2048)
        writer.beginObject()
        if let customToken {
            writer.key("customToken")
            writer.string(customToken)
        }
        writer.key("expiresIn")
        writer.int(Int64(expiresIn))
        writer.key("idToken")
        writer.string(idToken)
        writer.key("isNewUser")
        writer.bool(isNewUser)
        writer.key("refreshToken")
        writer.string(refreshToken)
        writer.key("user")
        user.writeJSON(into: &writer)
        writer.endObject()
        return JSONText(writer.bytes)
    }
}
