import BrokerCrypto
public import BrokerModel

/// A compact JWS split into its parts. Parsing checks only the shape; ``IDTokenVerifier`` decides trust.
public struct JWT: Sendable {
    /// The decoded header.
    public var header: [String: JSONValue]
    /// The decoded claims.
    public var claims: [String: JSONValue]
    /// `base64url(header) + "." + base64url(payload)`, the bytes the signature covers.
    public var signingInput: [UInt8]
    /// The signature bytes.
    public var signature: [UInt8]
    /// The header's `kid`, if it is a string.
    public var keyID: KeyID? { header["kid"]?.stringValue.map(KeyID.init(rawValue:)) }

    /// Header fields a token may carry that would make a verifier fetch or trust key material named by the
    /// token itself, or demand extensions: all refused.
    public static let forbiddenHeaderFields: Set<String> = ["jku", "x5u", "x5c", "jwk", "crit"]

    /// Splits and decodes `token`.
    public init(parsing token: String) throws {
        // Byte-wise: a Character-wise split costs more than verifying the token's RS256 signature.
        let bytes = Array(token.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        // Unpadded base64url only (RFC 7515): one token has one spelling, so single-use marks cannot be
        // dodged by appending "=".
        guard bytes.count <= 16 * 1024, parts.count == 3, !bytes.contains(UInt8(ascii: "=")),
            let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
            let payloadBytes = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
            let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)), !signature.isEmpty,
            let header = JSONValue.parse(headerBytes)?.objectValue,
            let claims = JSONValue.parse(payloadBytes)?.objectValue
        else { throw TokenError(.malformed, "not a compact JWS") }
        self.header = header
        self.claims = claims
        self.signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
        self.signature = signature
    }

    /// Encodes and signs a token: `sign` receives the signing input and returns the signature.
    public static func encode(
        header: [String: JSONValue], claims: [String: JSONValue], sign: ([UInt8]) throws -> [UInt8]
    ) rethrows -> String {
        let input = Base64URL.encode(JSONValue.object(header).serialized()) + "."
            + Base64URL.encode(JSONValue.object(claims).serialized())
        return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
    }
}
