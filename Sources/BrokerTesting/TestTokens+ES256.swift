import BrokerCore
import BrokerCrypto

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
