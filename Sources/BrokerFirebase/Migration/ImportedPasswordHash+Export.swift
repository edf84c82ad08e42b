import BrokerCore
import BrokerCrypto
public import BrokerModel

extension ImportedPasswordHash {
    /// How `broker admin export` writes a hash not yet upgraded to Argon2id: `passwordHash` and `salt` as
    /// Firebase's export has them (base64), and the algorithm and parameters, named as the flags of
    /// `firebase auth:import` are (`hashAlgo`, `hashKey`, `saltSeparator`, `rounds`, `memCost`,
    /// `parallelization`, `blockSize`, `dkLen`, `hashInputOrder`), in the extension field
    /// ``FirebaseUserRecord/hashConfigField``. Import reads them back with ``FirebaseHashOptions/init(exported:)``.
    public var exportFields: (passwordHash: [UInt8], salt: [UInt8]?, config: JSONValue) {
        // An empty separator is written as null (absent), as a flag not given.
        func b64(_ bytes: [UInt8]) -> JSONValue { bytes.isEmpty ? .null : .string(Base64.encode(bytes)) }
        func int(_ value: Int) -> JSONValue { .int(Int64(value)) }
        switch self {
        case let .firebaseScrypt(signerKey, separator, rounds, memoryCost, salt, hash):
            return (
                hash, salt,
                .object([
                    "hashAlgo": "SCRYPT", "hashKey": b64(signerKey), "saltSeparator": b64(separator),
                    "rounds": int(rounds),
                    "memCost": int(memoryCost),
                ])
            )
        case let .standardScrypt(n, blockSize, parallelization, separator, salt, hash):
            return (
                hash, salt,
                .object([
                    "hashAlgo": "STANDARD_SCRYPT", "saltSeparator": b64(separator), "memCost": int(n),
                    "blockSize": int(blockSize), "parallelization": int(parallelization), "dkLen": int(hash.count),
                ])
            )
        case .bcrypt(let crypt):
            return (Array(crypt.utf8), nil, .object(["hashAlgo": "BCRYPT"]))
        case let .pbkdf2(_, rounds, separator, salt, hash):
            return (
                hash, salt,
                .object([
                    "hashAlgo": .string(algorithmName), "saltSeparator": b64(separator), "rounds": int(rounds),
                    "dkLen": int(hash.count),
                ])
            )
        case let .hmac(_, key, order, separator, salt, hash):
            return (
                hash, salt,
                .object([
                    "hashAlgo": .string(algorithmName), "hashKey": b64(key), "saltSeparator": b64(separator),
                    "hashInputOrder": .string(order.flag),
                ])
            )
        case let .digest(_, rounds, order, separator, salt, hash):
            return (
                hash, salt,
                .object([
                    "hashAlgo": .string(algorithmName), "saltSeparator": b64(separator), "rounds": int(rounds),
                    "hashInputOrder": .string(order.flag),
                ])
            )
        }
    }
}

extension FirebaseHashOptions {
    /// The members ``ImportedPasswordHash/exportFields`` writes, and no others.
    static let exportedMembers: Set<String> = [
        "hashAlgo", "hashKey", "saltSeparator", "rounds", "memCost", "parallelization", "blockSize", "dkLen",
        "hashInputOrder",
    ]

    /// The options of one exported user's extension field ``FirebaseUserRecord/hashConfigField``: an object
    /// of the flags' values (strings, or whole numbers for the numeric ones), checked as the flags are.
    /// Throws ``ImportedHashError`` for an object that is not one.
    public init(exported config: JSONValue) throws {
        guard let members = config.objectValue, members.keys.allSatisfy(Self.exportedMembers.contains),
            let algorithm = members["hashAlgo"]?.stringValue
        else { throw ImportedHashError(.malformed, "not a hash configuration") }
        func text(_ name: String) throws -> String? {
            switch members[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case .int(let value)?: return String(value)
            default: throw ImportedHashError(.malformed, "\(name) is neither text nor a whole number")
            }
        }
        try self.init(
            hashAlgo: algorithm, hashKey: try text("hashKey"), saltSeparator: try text("saltSeparator"),
            rounds: try text("rounds"), memCost: try text("memCost"), parallelization: try text("parallelization"),
            blockSize: try text("blockSize"), dkLen: try text("dkLen"), hashInputOrder: try text("hashInputOrder"))
    }
}
