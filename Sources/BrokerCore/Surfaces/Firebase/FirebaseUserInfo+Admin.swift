import BrokerCrypto

extension FirebaseUserInfo {
    /// What only an administrator sees: `phoneNumber` (and its `phone` entry in `providerUserInfo`, as Firebase
    /// lists it), and the stored password hash in place of the redacted placeholder, as `broker admin export`
    /// writes it: an imported hash not yet upgraded as its bytes and `salt`, the broker's own hash as the base64
    /// of its text (an Argon2id PHC string, with no `salt`). Called by ``json(_:)`` for ``View/admin`` after the
    /// client fields are set.
    func addAdminFields(to fields: inout [String: JSONValue]) {
        if let phone = account.phoneNumber {
            fields["phoneNumber"] = .string(phone)
            var providers = fields["providerUserInfo"]?.arrayValue ?? []
            providers.append(["providerId": "phone", "rawId": .string(phone), "phoneNumber": .string(phone)])
            fields["providerUserInfo"] = .array(providers)
        }
        guard account.hasUsablePassword, let hash = account.passwordHash else { return }
        if let imported = try? ImportedPasswordHash(encoded: hash) {
            let exported = imported.exportFields
            fields["passwordHash"] = .string(Base64.encode(exported.passwordHash))
            if let salt = exported.salt, !salt.isEmpty { fields["salt"] = .string(Base64.encode(salt)) }
        } else {
            fields["passwordHash"] = .string(Base64.encode(Array(hash.utf8)))
        }
    }
}
