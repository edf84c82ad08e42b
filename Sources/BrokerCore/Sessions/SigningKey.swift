import BrokerCrypto
public import BrokerModel
import BrokerStorage
public import Foundation

/// The algorithms the broker signs its own ID tokens with.
public enum SigningAlgorithm: String, Sendable {
    /// ECDSA P-256 with SHA-256: the default (small, fast).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, for clients that only know RSA.
    case rs256 = "RS256"
}

/// One of the broker's own signing keys, loaded from its stored PEM.
public struct SigningKey: Sendable {
    private enum Material: Sendable {
        case ec(P256PrivateKey)
        case rsa(RSAPrivateKey)
    }

    /// The `kid`.
    public let id: KeyID
    /// The algorithm.
    public let algorithm: SigningAlgorithm
    /// When it was made.
    public let createdAt: Date
    /// When it stopped signing, if it did.
    public let retiredAt: Date?
    private let material: Material

    /// Loads a stored key.
    public init(stored: StoredSigningKey) throws {
        guard let algorithm = SigningAlgorithm(rawValue: stored.algorithm) else {
            throw ConfigError(field: "signing_keys.algorithm", "unknown signing algorithm \(stored.algorithm)")
        }
        id = stored.id
        self.algorithm = algorithm
        createdAt = stored.createdAt
        retiredAt = stored.retiredAt
        switch algorithm {
        case .es256: material = .ec(try P256PrivateKey(pem: stored.privateKeyPEM))
        case .rs256: material = .rsa(try RSAPrivateKey(pem: stored.privateKeyPEM))
        }
    }

    /// Makes a new key, returning the record to store.
    public static func generate(_ algorithm: SigningAlgorithm, at date: Date) throws -> StoredSigningKey {
        let pem: String
        switch algorithm {
        case .es256: pem = try P256PrivateKey.generate().pemPKCS8()
        case .rs256: pem = try RSAPrivateKey.generate(bits: 2048).pemPKCS8()
        }
        let kid = KeyID(Base64URL.encode(Array(SecureRandom.bytes(12))))
        return StoredSigningKey(id: kid, algorithm: algorithm.rawValue, privateKeyPEM: pem, createdAt: date)
    }

    /// Signs `message` (a JWT signing input).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch material {
        case .ec(let key): try key.signSHA256(message)
        case .rsa(let key): try key.signSHA256(message)
        }
    }

    /// Verifies a signature made by this key.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        switch material {
        case .ec(let key): key.publicKey.verifySHA256(signature: signature, message: message)
        case .rsa(let key): key.publicKey.verifySHA256(signature: signature, message: message)
        }
    }

    /// The public half as a JWK, for `/.well-known/jwks.json`.
    public var publicJWK: JSONValue {
        var members: [String: JSONValue] = ["kid": .string(id.rawValue), "alg": .string(algorithm.rawValue), "use": .string("sig")]
        switch material {
        case .ec(let key):
            members["kty"] = .string("EC")
            members["crv"] = .string("P-256")
            members["x"] = .string(Base64URL.encode(key.publicKey.x))
            members["y"] = .string(Base64URL.encode(key.publicKey.y))
        case .rsa(let key):
            members["kty"] = .string("RSA")
            members["n"] = .string(Base64URL.encode(key.publicKey.modulus))
            members["e"] = .string(Base64URL.encode(key.publicKey.exponent))
        }
        return .object(members)
    }
}
