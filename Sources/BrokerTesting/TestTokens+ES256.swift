import BrokerCore
public import BrokerCrypto
import BrokerIdentity
public import BrokerModel

extension TestTokens {
    /// An ES256 JWT over `claims`, with header `alg`/`kid`/`typ` plus `extraHeader`.
    public static func signES256(
        claims: [String: JSONValue], key: P256PrivateKey, kid: String?, extraHeader: [String: JSONValue] = [:]
    ) throws -> String {
        var header: [String: JSONValue] = ["alg": "ES256", "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        header.merge(extraHeader) { _, new in new }
        return try JWT.encode(header: header, claims: claims, sign: key.signSHA256)
    }

    /// An HS256 JWT over `claims` keyed with `secret` (a verifier must refuse it whatever the secret: an HMAC
    /// token keyed with a public key's bytes is the classic algorithm-confusion attack).
    public static func signHS256(claims: [String: JSONValue], secret: [UInt8], kid: String?) -> String {
        var header: [String: JSONValue] = ["alg": "HS256", "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        return JWT.encode(header: header, claims: claims) { HMAC.sha256(key: secret, message: $0) }
    }

    /// An unsigned JWT (`alg` `none`, with a placeholder signature so it has three non-empty parts).
    public static func unsigned(claims: [String: JSONValue], kid: String?) -> String {
        var header: [String: JSONValue] = ["alg": "none", "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        return JWT.encode(header: header, claims: claims) { _ in [0] }
    }
}

/// The ways ``TestTokens/forged(_:as:)`` spoils a token.
public enum TokenForgery: String, Sendable, CaseIterable {
    /// Re-signed with HS256, keyed with the bytes of its own signature (no verifier may accept HMAC).
    case hmac
    /// `alg` `none`, with a one-byte placeholder signature.
    case none
    /// The header and claims kept, one byte of the signature flipped.
    case signature
}

extension TestTokens {
    /// `token` (a valid compact JWS) with the same header and claims but forged as `forgery` says.
    public static func forged(_ token: String, as forgery: TokenForgery) throws -> String {
        let jwt = try JWT(parsing: token)
        var header = jwt.header
        switch forgery {
        case .hmac:
            header["alg"] = "HS256"
            return JWT.encode(header: header, claims: jwt.claims) { HMAC.sha256(key: jwt.signature, message: $0) }
        case .none:
            header["alg"] = "none"
            return JWT.encode(header: header, claims: jwt.claims) { _ in [0] }
        case .signature:
            var signature = jwt.signature
            signature[signature.count / 2] ^= 0x01
            return JWT.encode(header: header, claims: jwt.claims) { _ in signature }
        }
    }
}
