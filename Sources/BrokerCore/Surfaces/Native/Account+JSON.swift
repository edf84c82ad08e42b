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

extension SessionTokens {
    /// The contract's session body.
    public func body(user: Account, isNewUser: Bool) -> JSONValue {
        var members: [String: JSONValue] = [
            "user": user.json, "isNewUser": .bool(isNewUser), "idToken": .string(idToken),
            "refreshToken": .string(refreshToken), "expiresIn": .int(Int64(expiresIn)),
        ]
        if let customToken { members["customToken"] = .string(customToken) }
        return .object(members)
    }
}
