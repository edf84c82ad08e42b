/// A signing key's id: the `kid` of a JWS header and of a JWK, whether the key is the broker's own (its key
/// ring, its JWKS), a provider's (a fetched JWKS) or a credential's (a service account's `private_key_id`, a
/// provider's developer key id). Compared byte for byte; the wire and the database hold the plain string.
public struct KeyID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The id as it appears in a header, a JWK or a `signing_keys.kid` column.
    public var rawValue: String
    /// Wraps an id.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps an id.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Wraps an id written in code.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The id.
    public var description: String { rawValue }
    /// Orders by the plain string (a key listing's tie-break).
    public static func < (lhs: KeyID, rhs: KeyID) -> Bool { lhs.rawValue < rhs.rawValue }
}
