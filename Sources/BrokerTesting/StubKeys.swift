import BrokerCore
public import BrokerCrypto
import BrokerIdentity
public import BrokerModel
import Foundation

/// The RSA keys one stub provider signs its ID tokens with, published as its JWKS.
public final class StubKeySet: @unchecked Sendable {
    // Guarded by `lock`.
    private var keys: [(id: String, key: RSAPrivateKey)]
    private let lock = NSLock()
    private let prefix: String

    /// A key set holding one fresh 2048-bit key named `<prefix>-1`.
    public init(prefix: String) throws {
        self.prefix = prefix
        keys = [(id: "\(prefix)-1", key: try StubKeySet.sharedKey(index: 0))]
    }

    /// The key that signs new tokens (the newest).
    public var current: (id: String, key: RSAPrivateKey) {
        lock.withLock { keys[keys.count - 1] }
    }

    /// Adds a new key that signs from now on; the old keys stay published unless `dropOld`.
    @discardableResult
    public func rotate(dropOld: Bool = false) throws -> String {
        let index = lock.withLock { keys.count }
        let key = try StubKeySet.sharedKey(index: index)
        return lock.withLock {
            let id = "\(prefix)-\(keys.count + 1)"
            if dropOld { keys.removeAll() }
            keys.append((id: id, key: key))
            return id
        }
    }

    /// Publishes a 1024-bit key as `<prefix>-weak` (a verifier must ignore it) and returns it.
    @discardableResult
    public func publishWeakKey() throws -> RSAPrivateKey {
        let weak = try StubKeySet.weakKey()
        lock.withLock { keys.insert((id: "\(prefix)-weak", key: weak), at: 0) }
        return weak
    }

    /// The JWKS document.
    public var jwks: JSONValue {
        let published = lock.withLock { keys }
        return .object([
            "keys": .array(
                published.map { entry in
                    .object([
                        "kty": "RSA", "alg": "RS256", "use": "sig", "kid": .string(entry.id),
                        "n": .string(Base64URL.encode(entry.key.publicKey.modulus)),
                        "e": .string(Base64URL.encode(entry.key.publicKey.exponent)),
                    ])
                })
        ])
    }

    /// Generating RSA keys is slow; tests of one process share a small pool, made once.
    private static let pool = NSLock()
    nonisolated(unsafe) private static var generated: [RSAPrivateKey] = []

    /// The shared test key number `index`, generated on first use.
    public static func sharedKey(index: Int) throws -> RSAPrivateKey {
        try pool.withLock {
            while generated.count <= index { generated.append(try RSAPrivateKey.generate(bits: 2048)) }
            return generated[index]
        }
    }

    /// A shared key not used by any stub provider (an attacker's key), by index.
    public static func strangerKey(_ index: Int = 0) throws -> RSAPrivateKey {
        try pool.withLock {
            while strangers.count <= index { strangers.append(try RSAPrivateKey.generate(bits: 2048)) }
            return strangers[index]
        }
    }
    nonisolated(unsafe) private static var strangers: [RSAPrivateKey] = []

    /// A 1024-bit key, too weak to be accepted.
    public static func weakKey() throws -> RSAPrivateKey {
        try pool.withLock {
            if let weak = weakKeyCache { return weak }
            let key = try RSAPrivateKey.generate(bits: 1024)
            weakKeyCache = key
            return key
        }
    }
    nonisolated(unsafe) private static var weakKeyCache: RSAPrivateKey?
}

/// Signs test tokens with any header and claims.
public enum TestTokens {
    /// An RS256 JWT over `claims`, with header `alg`/`kid`/`typ` plus `extraHeader`.
    public static func sign(
        claims: [String: JSONValue], key: RSAPrivateKey, kid: String?, extraHeader: [String: JSONValue] = [:],
        alg: String = "RS256"
    ) throws -> String {
        var header: [String: JSONValue] = ["alg": .string(alg), "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        header.merge(extraHeader) { _, new in new }
        return try JWT.encode(header: header, claims: claims, sign: key.signSHA256)
    }

    /// The lowercase hex SHA-256 of a raw nonce, as apps put it in the provider request.
    public static func hashedNonce(_ raw: String) -> String { Hex.encode(Digest.sha256(raw)) }
}
