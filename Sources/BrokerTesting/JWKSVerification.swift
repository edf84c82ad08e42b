import BrokerCore
import BrokerCrypto
import BrokerIdentity
public import BrokerModel
import Foundation

/// Verifies a JWT against a JWKS document the way any standard JWT library would (kid → key, alg from the
/// key); for checking the broker's own ID tokens from the outside.
public enum JWKSVerification {
    /// The claims of `token` when a key of `jwks` with its `kid` and `alg` verifies its signature; else nil.
    public static func claims(of token: String, jwks: JSONValue) -> [String: JSONValue]? {
        guard let jwt = try? JWT(parsing: token), let kid = jwt.header["kid"]?.stringValue,
            let alg = jwt.header["alg"]?.stringValue,
            let jwk = jwks["keys"]?.arrayValue?.first(where: { $0["kid"]?.stringValue == kid }),
            jwk["alg"]?.stringValue == alg
        else { return nil }
        let verified: Bool
        switch (alg, jwk["kty"]?.stringValue) {
        case ("ES256", "EC"?):
            guard let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode),
                let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode), let key = try? P256PublicKey(x: x, y: y)
            else { return nil }
            verified = key.verifySHA256(signature: jwt.signature, message: jwt.signingInput)
        case ("RS256", "RSA"?):
            guard let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? RSAPublicKey(modulus: n, exponent: e)
            else { return nil }
            verified = key.verifySHA256(signature: jwt.signature, message: jwt.signingInput)
        default:
            return nil
        }
        return verified ? jwt.claims : nil
    }

    /// The header and claims of a token without verifying it.
    public static func decode(_ token: String) -> (header: [String: JSONValue], claims: [String: JSONValue])? {
        guard let jwt = try? JWT(parsing: token) else { return nil }
        return (jwt.header, jwt.claims)
    }
}
