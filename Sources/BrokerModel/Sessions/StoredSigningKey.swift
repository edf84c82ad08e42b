public import Foundation

/// A key the broker signs its own ID tokens with, kept in the database so it survives restarts.
public struct StoredSigningKey: Sendable, Equatable {
    /// The `kid`.
    public var id: KeyID
    /// `ES256` or `RS256`.
    public var algorithm: String
    /// The private key, PEM (PKCS#8).
    public var privateKeyPEM: String
    /// When it was made.
    public var createdAt: Date
    /// When it stopped signing; it stays published until the tokens it signed have expired.
    public var retiredAt: Date?

    /// Creates a key record.
    public init(id: KeyID, algorithm: String, privateKeyPEM: String, createdAt: Date, retiredAt: Date? = nil) {
        self.id = id
        self.algorithm = algorithm
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}
