/// A WebAuthn ceremony that did not verify: which check refused it. Every check is one public answer
/// (`INVALID_PASSKEY`); the check is for logs and tests, and never carries the credential's bytes.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check that refused (WebAuthn Level 3 sections 7.1 and 7.2, in their order).
    public enum Check: String, Sendable, CaseIterable {
        /// The response's JSON: a field missing, not base64url, or of the wrong type.
        case response
        /// `clientDataJSON` is not a JSON object with string `type`, `challenge` and `origin`.
        case clientData
        /// `type` is not `webauthn.create` (registration) or `webauthn.get` (sign-in).
        case type
        /// The challenge is not the one issued for this ceremony (or it was used, or expired).
        case challenge
        /// `origin` is not among the configured origins.
        case origin
        /// `crossOrigin` is true: the ceremony ran in a frame of another origin.
        case crossOrigin
        /// The authenticator data is malformed: too short, bad CBOR after it, bytes left over.
        case authenticatorData
        /// `rpIdHash` is not SHA-256 of the configured `rpId`.
        case rpIdHash
        /// The user-present flag is not set.
        case userPresence
        /// The user-verified flag is not set (the broker requires verification).
        case userVerification
        /// A registration without attested credential data, or a credential id of a bad length.
        case attestedCredential
        /// A COSE key of an algorithm or curve the broker does not take, or malformed.
        case unsupportedKey
        /// The attestation object is malformed, or its statement does not verify where the broker checks it.
        case attestation
        /// The assertion's signature does not verify with the stored key.
        case signature
        /// The signature counter did not advance (a possibly cloned authenticator, section 7.2).
        case counter
        /// The assertion's `userHandle` is not the handle of the credential's account.
        case userHandle
    }

    /// The check that refused.
    public var check: Check

    /// A refusal by `check`.
    public init(_ check: Check) {
        self.check = check
    }

    /// The check's name.
    public var description: String { "passkey refused: \(check.rawValue)" }
}
