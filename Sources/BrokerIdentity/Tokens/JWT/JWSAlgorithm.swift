/// The JWS algorithms the broker verifies provider ID tokens with. There is no `none` and no HMAC: a provider's
/// token is checked with the provider's public key, never with a shared secret.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, signatures as `r || s` (RFC 7518 section 3.4).
    case es256 = "ES256"
}
