import BrokerCrypto

extension ImportedPasswordHash {
    /// The stored form: one string for the account store's password-hash column (see the type's docs).
    public var encoded: String {
        switch self {
        case let .firebaseScrypt(signerKey, separator, rounds, memoryCost, salt, hash):
            "$firebase-scrypt$r=\(rounds),m=\(memoryCost),k=\(Self.b64(signerKey)),s=\(Self.b64(separator))$\(Self.b64(salt))$\(Self.b64(hash))"
        case let .standardScrypt(n, blockSize, parallelization, separator, salt, hash):
            "$standard-scrypt$n=\(n),r=\(blockSize),p=\(parallelization),s=\(Self.b64(separator))$\(Self.b64(salt))$\(Self.b64(hash))"
        case .bcrypt(let crypt):
            crypt
        case let .pbkdf2(digest, rounds, separator, salt, hash):
            "$pbkdf2-\(digest.rawValue)$i=\(rounds),s=\(Self.b64(separator))$\(Self.b64(salt))$\(Self.b64(hash))"
        case let .hmac(digest, key, order, separator, salt, hash):
            "$hmac-\(digest.rawValue)$k=\(Self.b64(key)),o=\(order.rawValue),s=\(Self.b64(separator))"
                + "$\(Self.b64(salt))$\(Self.b64(hash))"
        case let .digest(digest, rounds, order, separator, salt, hash):
            "$\(digest.rawValue)$r=\(rounds),o=\(order.rawValue),s=\(Self.b64(separator))"
                + "$\(Self.b64(salt))$\(Self.b64(hash))"
        }
    }

    /// Parses a stored form. Throws ``ImportedHashError`` with `malformed` for anything but the exact,
    /// canonical spelling ``encoded`` writes, and the codes of ``validate()`` for values beyond the bounds.
    public init(encoded text: String) throws {
        guard text.utf8.count <= 8192 else { throw ImportedHashError(.malformed, "stored hash too long") }
        if text.hasPrefix("$2") {
            _ = try Self.bcryptCost(text)
            self = .bcrypt(text)
            return
        }
        let parts = text.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0].isEmpty else { throw ImportedHashError(.malformed, "not an imported hash") }
        let fields = try Self.parameters(parts[2])
        let salt = try Self.bytes(parts[3])
        let hash = try Self.bytes(parts[4])
        let value: ImportedPasswordHash
        switch parts[1] {
        case "firebase-scrypt":
            try Self.expect(fields, ["r", "m", "k", "s"])
            value = .firebaseScrypt(
                signerKey: try Self.bytes(fields[2].value), saltSeparator: try Self.bytes(fields[3].value),
                rounds: try Self.integer(fields[0].value), memoryCost: try Self.integer(fields[1].value), salt: salt,
                hash: hash)
        case "standard-scrypt":
            try Self.expect(fields, ["n", "r", "p", "s"])
            value = .standardScrypt(
                n: try Self.integer(fields[0].value), blockSize: try Self.integer(fields[1].value),
                parallelization: try Self.integer(fields[2].value), saltSeparator: try Self.bytes(fields[3].value),
                salt: salt, hash: hash)
        case let name where name.hasPrefix("pbkdf2-"):
            guard let digest = DigestAlgorithm(rawValue: String(name.dropFirst(7))), Self.pbkdf2Digests.contains(digest)
            else { throw ImportedHashError(.malformed, "unknown imported hash algorithm") }
            try Self.expect(fields, ["i", "s"])
            value = .pbkdf2(
                digest, rounds: try Self.integer(fields[0].value), saltSeparator: try Self.bytes(fields[1].value),
                salt: salt, hash: hash)
        case let name where name.hasPrefix("hmac-"):
            guard let digest = DigestAlgorithm(rawValue: String(name.dropFirst(5))) else {
                throw ImportedHashError(.malformed, "unknown imported hash algorithm")
            }
            try Self.expect(fields, ["k", "o", "s"])
            value = .hmac(
                digest, key: try Self.bytes(fields[0].value), order: try Self.order(fields[1].value),
                saltSeparator: try Self.bytes(fields[2].value), salt: salt, hash: hash)
        default:
            guard let digest = DigestAlgorithm(rawValue: parts[1]) else {
                throw ImportedHashError(.malformed, "unknown imported hash algorithm")
            }
            try Self.expect(fields, ["r", "o", "s"])
            value = .digest(
                digest, rounds: try Self.integer(fields[0].value), order: try Self.order(fields[1].value),
                saltSeparator: try Self.bytes(fields[2].value), salt: salt, hash: hash)
        }
        // One spelling per hash: leading zeros, padding or other variants are refused.
        guard value.encoded == text else { throw ImportedHashError(.malformed, "not in canonical form") }
        try value.validate()
        self = value
    }

    private static func b64(_ bytes: [UInt8]) -> String {
        var text = Base64.encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    private static func bytes(_ text: String) throws -> [UInt8] {
        guard !text.contains("="), let bytes = Base64.decode(text) else {
            throw ImportedHashError(.malformed, "bad base64 field")
        }
        return bytes
    }

    private static func order(_ text: String) throws -> HashInputOrder {
        guard let order = HashInputOrder(rawValue: text) else {
            throw ImportedHashError(.malformed, "unknown hash input order")
        }
        return order
    }

    private static func integer(_ text: String) throws -> Int {
        guard text.utf8.count <= 9, let value = Int(text), value >= 0 else {
            throw ImportedHashError(.malformed, "bad number field")
        }
        return value
    }

    private static func parameters(_ text: String) throws -> [(name: String, value: String)] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { pair in
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard halves.count == 2 else { throw ImportedHashError(.malformed, "bad parameter") }
            return (String(halves[0]), String(halves[1]))
        }
    }

    private static func expect(_ fields: [(name: String, value: String)], _ names: [String]) throws {
        guard fields.map(\.name) == names else { throw ImportedHashError(.malformed, "unexpected parameters") }
    }
}
