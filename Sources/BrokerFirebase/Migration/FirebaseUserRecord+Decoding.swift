import BrokerCore
public import BrokerModel
import Foundation

extension FirebaseUserRecord {
    /// The fields of a user record `firebase auth:export` writes; any other is ignored and noted.
    static let knownFields: Set<String> = [
        "localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "phoneNumber",
        "disabled", "createdAt", "lastSignedInAt", "customAttributes", "providerUserInfo", hashConfigField, originField,
        secondFactorsField,
    ]
    /// The fields of a `providerUserInfo` entry.
    static let knownProviderFields: Set<String> = [
        "providerId", "rawId", "email", "displayName", "photoUrl", FirebaseProviderUserInfo.providerField,
        FirebaseProviderUserInfo.linkedAtField, FirebaseProviderUserInfo.kindField,
    ]
    /// The latest time accepted: the end of year 9999, in milliseconds.
    static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// Decodes and validates one element of the export's `users` array. Throws ``FirebaseUserError`` naming
    /// the field at fault; a `photoUrl` that is not `http(s)` and unknown fields are dropped into ``notes``.
    public init(json: JSONValue) throws {
        guard let fields = json.objectValue else { throw FirebaseUserError(.invalidRecord, "not a JSON object") }
        var notes: [String] = []
        for name in fields.keys.sorted() where !Self.knownFields.contains(name) {
            notes.append("ignored field \(Self.printable(name))")
        }
        guard let localId = try Self.text(fields, "localId"),
            (1...128).contains(localId.unicodeScalars.count), !Self.hasControlCharacters(localId)
        else { throw FirebaseUserError(.invalidLocalId, "localId") }

        let email = try Self.text(fields, "email", maximumBytes: 254)
        if let email, !PasswordPolicy.isValidEmail(email) { throw FirebaseUserError(.invalidEmail, "email") }

        var photoURL = try Self.text(fields, "photoUrl", maximumBytes: .max)
        if let url = photoURL, !Self.isWebURL(url) {
            photoURL = nil
            notes.append("dropped photoUrl (not an http(s) URL)")
        }
        let phoneNumber = try Self.text(fields, "phoneNumber", maximumBytes: 64)
        if let phoneNumber, Self.hasControlCharacters(phoneNumber) { throw FirebaseUserError(.invalidField, "phoneNumber") }
        let displayName = try Self.text(fields, "displayName")
        if let displayName, Self.hasControlCharacters(displayName) { throw FirebaseUserError(.invalidField, "displayName") }

        self.init(
            localId: localId, email: email, emailVerified: try Self.flag(fields, "emailVerified"),
            passwordHash: try Self.base64(fields, "passwordHash"), salt: try Self.base64(fields, "salt"),
            displayName: displayName, photoURL: photoURL, phoneNumber: phoneNumber,
            disabled: try Self.flag(fields, "disabled"), createdAt: try Self.time(fields, "createdAt"),
            lastSignedInAt: try Self.time(fields, "lastSignedInAt"),
            customAttributes: try Self.customAttributes(fields),
            providerUserInfo: try Self.providers(fields, notes: &notes), notes: notes,
            hashConfig: try Self.hashConfig(fields), origin: try Self.origin(fields),
            secondFactors: try fields[Self.secondFactorsField].flatMap {
                $0 == .null ? nil : try ExportedSecondFactors(json: $0)
            })
    }

    /// The broker's extension field of a not-yet-upgraded hash's parameters, checked as the flags are.
    private static func hashConfig(_ fields: [String: JSONValue]) throws -> FirebaseHashOptions? {
        guard let config = fields[hashConfigField], config != .null else { return nil }
        do {
            return try FirebaseHashOptions(exported: config)
        } catch let error as ImportedHashError {
            throw FirebaseUserError(.invalidField, "\(hashConfigField) (\(error.code.rawValue))")
        }
    }

    /// The broker's extension field of the account's origin: `signup`, `import` or a provider's id.
    private static func origin(_ fields: [String: JSONValue]) throws -> AccountOrigin? {
        guard let text = try text(fields, originField, maximumBytes: 32) else { return nil }
        guard isProviderName(text) else { throw FirebaseUserError(.invalidField, originField) }
        return AccountOrigin(rawValue: text)
    }

    /// Whether `text` has the shape of a provider id (`^[a-z][a-z0-9-]{0,31}$`), as origins do.
    static func isProviderName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, (0x61...0x7A).contains(first), bytes.count <= 32 else { return false }
        return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// A string field: nil when absent, null or empty; ``FirebaseUserError/Code/invalidField`` when of
    /// another type or longer than `maximumBytes`.
    private static func text(_ fields: [String: JSONValue], _ name: String, maximumBytes: Int = 1024) throws -> String? {
        switch fields[name] {
        case nil, .null?: return nil
        case .string(let value)?:
            guard value.utf8.count <= maximumBytes else { throw FirebaseUserError(.invalidField, name) }
            return value.isEmpty ? nil : value
        default: throw FirebaseUserError(name == "localId" ? .invalidLocalId : .invalidField, name)
        }
    }

    private static func flag(_ fields: [String: JSONValue], _ name: String) throws -> Bool {
        switch fields[name] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw FirebaseUserError(.invalidField, name)
        }
    }

    private static func base64(_ fields: [String: JSONValue], _ name: String) throws -> [UInt8]? {
        guard let text = try text(fields, name, maximumBytes: 8192) else { return nil }
        guard let bytes = FirebaseBase64.decode(text) else { throw FirebaseUserError(.invalidBase64, name) }
        return bytes
    }

    /// Milliseconds since 1970 as a string of digits or a JSON number.
    private static func time(_ fields: [String: JSONValue], _ name: String) throws -> Date? {
        let milliseconds: Int64
        switch fields[name] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard !text.isEmpty else { return nil }
            guard text.utf8.count <= 15, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int64(text)
            else { throw FirebaseUserError(.invalidTime, name) }
            milliseconds = value
        case let value?:
            guard let number = value.intValue else { throw FirebaseUserError(.invalidTime, name) }
            milliseconds = number
        }
        guard (0...latestMilliseconds).contains(milliseconds) else { throw FirebaseUserError(.invalidTime, name) }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func customAttributes(_ fields: [String: JSONValue]) throws -> String? {
        guard let text = try text(fields, "customAttributes", maximumBytes: 64 * 1024) else { return nil }
        guard let value = JSONValue.parse(Array(text.utf8)), value.objectValue != nil,
            let claims = try? CustomClaims.validated(value)
        else { throw FirebaseUserError(.invalidCustomAttributes, "customAttributes") }
        return claims
    }

    private static func providers(_ fields: [String: JSONValue], notes: inout [String]) throws -> [FirebaseProviderUserInfo] {
        let entries: [JSONValue]
        switch fields["providerUserInfo"] {
        case nil, .null?: return []
        case .array(let values)?: entries = values
        default: throw FirebaseUserError(.invalidProviderUserInfo, "providerUserInfo")
        }
        guard entries.count <= maximumProviders else {
            throw FirebaseUserError(.invalidProviderUserInfo, "providerUserInfo has more than \(maximumProviders) entries")
        }
        return try entries.enumerated().map { position, entry in
            let name = "providerUserInfo[\(position)]"
            guard let members = entry.objectValue else { throw FirebaseUserError(.invalidProviderUserInfo, name) }
            for key in members.keys.sorted() where !knownProviderFields.contains(key) {
                notes.append("ignored field \(name).\(printable(key))")
            }
            do {
                guard let providerId = try text(members, "providerId", maximumBytes: 128), !hasControlCharacters(providerId),
                    let rawId = try text(members, "rawId", maximumBytes: 256), !hasControlCharacters(rawId)
                else { throw FirebaseUserError(.invalidProviderUserInfo, name) }
                var photoURL = try text(members, "photoUrl", maximumBytes: .max)
                if let url = photoURL, !isWebURL(url) {
                    photoURL = nil
                    notes.append("dropped \(name).photoUrl (not an http(s) URL)")
                }
                let brokerProvider = try text(members, FirebaseProviderUserInfo.providerField, maximumBytes: 32)
                if let brokerProvider, !isProviderName(brokerProvider) {
                    throw FirebaseUserError(.invalidProviderUserInfo, "\(name).\(FirebaseProviderUserInfo.providerField)")
                }
                let kindText = try text(members, FirebaseProviderUserInfo.kindField, maximumBytes: 16)
                let kind = kindText.flatMap(CredentialKind.init(rawValue:))
                guard kindText == nil || kind != nil else {
                    throw FirebaseUserError(.invalidProviderUserInfo, "\(name).\(FirebaseProviderUserInfo.kindField)")
                }
                return FirebaseProviderUserInfo(
                    providerId: providerId, rawId: rawId, email: try text(members, "email", maximumBytes: 320),
                    displayName: try text(members, "displayName"), photoURL: photoURL,
                    brokerProvider: brokerProvider.map { ProviderID($0) },
                    linkedAt: try time(members, FirebaseProviderUserInfo.linkedAtField), credentialKind: kind)
            } catch let error as FirebaseUserError where error.code == .invalidField {
                throw FirebaseUserError(.invalidProviderUserInfo, "\(name).\(error.detail)")
            }
        }
    }

    /// Whether `text` is an absolute `http` or `https` URL with a host, at most 2048 bytes.
    static func isWebURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, !text.contains(where: { $0.isWhitespace }), !hasControlCharacters(text),
            let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }

    private static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// A field name for a note: at most 64 characters, control characters replaced.
    private static func printable(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.prefix(64).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
