import BrokerCore
import BrokerCrypto
import BrokerModel

extension FirebaseUserInfo {
    /// What only an administrator sees: `phoneNumber` (and its `phone` entry in `providerUserInfo`, as Firebase
    /// lists it), and the stored password hash in place of the redacted placeholder, as `broker admin export`
    /// writes it: an imported hash not yet upgraded as its bytes and `salt`, the broker's own hash as the base64
    /// of its text (an Argon2id PHC string) with the PHC string's salt as `salt`. Called by ``json(_:)`` for ``View/admin`` after the
    /// client fields are set.
    func addAdminFields(to fields: inout [String: JSONValue]) {
        if let phone = account.phoneNumber {
            fields["phoneNumber"] = .string(phone)
            var providers = fields["providerUserInfo"]?.arrayValue ?? []
            providers.append(["providerId": "phone", "rawId": .string(phone), "phoneNumber": .string(phone)])
            fields["providerUserInfo"] = .array(providers)
        }
        guard account.hasUsablePassword, let hash = account.password?.hash else { return }
        if let imported = try? ImportedPasswordHash(encoded: hash) {
            let exported = imported.exportFields
            fields["passwordHash"] = .string(Base64.encode(exported.passwordHash))
            if let salt = exported.salt, !salt.isEmpty { fields["salt"] = .string(Base64.encode(salt)) }
        } else {
            fields["passwordHash"] = .string(Base64.encode(Array(hash.utf8)))
            // The Admin SDKs expect a salt beside every hash: the PHC string's own salt.
            fields["salt"] = .string(Base64.encode(Self.phcSalt(hash) ?? []))
        }
    }

    /// The salt of a PHC string (`$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>`, the salt in unpadded base64), nil
    /// when `hash` is not one.
    static func phcSalt(_ hash: String) -> [UInt8]? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[4].utf8.count <= 128 else { return nil }
        var salt = String(parts[4])
        while salt.utf8.count % 4 != 0 { salt += "=" }
        return Base64.decode(salt)
    }
}
