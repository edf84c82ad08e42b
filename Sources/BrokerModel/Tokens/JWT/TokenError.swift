/// Why a token was refused, compared by code. The HTTP edge maps each code to the contract's error.
public struct TokenError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// Not three base64url segments of JSON, or a required claim has the wrong type.
        case malformed
        /// `alg` is not the one pinned for this issuer.
        case algorithmNotAllowed
        /// The header carries `jku`, `x5u`, `x5c`, `jwk` or `crit`.
        case forbiddenHeader
        /// No usable key with the token's `kid`.
        case unknownKey
        /// The signature does not verify.
        case badSignature
        /// `exp` has passed (beyond the allowed skew).
        case expired
        /// `iat` lies in the future (beyond the allowed skew).
        case issuedInFuture
        /// `nbf` lies in the future (beyond the allowed skew).
        case notYetValid
        /// `iss` is not one of the configured issuers.
        case invalidIssuer
        /// `aud` names none of the configured audiences.
        case invalidAudience
        /// `sub` is missing or empty.
        case missingSubject
        /// The body has no `rawNonce` but the provider requires one.
        case missingNonce
        /// The token's `nonce` is not the SHA-256 of the body's `rawNonce`.
        case nonceMismatch
        /// The token was accepted before and is single-use.
        case replayed
    }

    /// The reason.
    public var code: Code
    /// Detail for logs; never contains the token.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

extension TokenError {
    /// The token refusal (``CodedError``).
    public var refusal: Refusal? {
        .token(code)
    }
}
