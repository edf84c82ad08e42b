import BrokerCore
public import BrokerCrypto
public import BrokerModel
import Foundation

/// The P-256 keys a stub provider signs its ES256 ID tokens with, published as EC JWKs.
public final class StubECKeySet: @unchecked Sendable {
    // Guarded by `lock`.
    private var keys: [(id: String, key: P256PrivateKey)]
    private let lock = NSLock()
    private let prefix: String

    /// A key set holding one fresh key named `<prefix>-1`.
    public init(prefix: String) throws {
        self.prefix = prefix
        keys = [(id: "\(prefix)-1", key: try P256PrivateKey.generate())]
    }

    /// The key that signs new tokens (the newest).
    public var current: (id: String, key: P256PrivateKey) {
        lock.withLock { keys[keys.count - 1] }
    }

    /// Adds a new key that signs from now on; the old ones stay published.
    @discardableResult
    public func rotate() throws -> String {
        let key = try P256PrivateKey.generate()
        return lock.withLock {
            let id = "\(prefix)-\(keys.count + 1)"
            keys.append((id: id, key: key))
            return id
        }
    }

    /// The JWKS entries (`kty` EC, `crv` P-256, `alg` ES256).
    public var entries: [JSONValue] {
        lock.withLock { keys }.map { entry in
            .object([
                "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": .string(entry.id),
                "x": .string(Base64URL.encode(entry.key.publicKey.x)),
                "y": .string(Base64URL.encode(entry.key.publicKey.y)),
            ])
        }
    }

    /// The JWKS document.
    public var jwks: JSONValue { .object(["keys": .array(entries)]) }
}
