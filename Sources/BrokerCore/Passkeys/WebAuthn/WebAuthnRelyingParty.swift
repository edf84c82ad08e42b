import BrokerCBOR
import BrokerCrypto
public import BrokerModel

/// The broker as a WebAuthn relying party: its RP id and the origins ceremonies may come from, and the two
/// verifications of WebAuthn Level 3 (section 7.1, a registration; 7.2, an authentication), pure: the caller finds
/// the challenge it issued and the stored credential, and stores what comes back.
public struct WebAuthnRelyingParty: Sendable {
    /// The RP id (a registrable domain, `example.com`).
    public let rpID: String
    /// Every origin a ceremony may come from (`https://example.com`, an Android app's `android:apk-key-hash:…`).
    public let origins: Set<String>
    /// SHA-256 of `rpID`, which authenticator data must carry.
    public let rpIDHash: [UInt8]

    /// A relying party for `rpID` taking ceremonies from `origins`.
    public init(rpID: String, origins: Set<String>) {
        self.rpID = rpID
        self.origins = origins
        rpIDHash = Digest.sha256(rpID)
    }

    /// A registration that verified: what to store.
    public struct Registration: Sendable, Equatable {
        /// The new credential's id.
        public var credentialID: [UInt8]
        /// Its COSE public key, as the authenticator encoded it.
        public var publicKey: [UInt8]
        /// Its COSE algorithm.
        public var algorithm: COSEKey.Algorithm
        /// The signature counter at registration.
        public var signCount: UInt32
        /// Whether the credential may be synced (BE).
        public var backupEligible: Bool
        /// Whether it is synced now (BS).
        public var backedUp: Bool
        /// The attestation format the authenticator used (`none`, `packed`, …).
        public var attestationFormat: String
    }

    /// An authentication that verified: what to update on the stored credential.
    public struct Assertion: Sendable, Equatable {
        /// The new signature counter.
        public var signCount: UInt32
        /// Whether the credential is synced now (BS).
        public var backedUp: Bool
    }

    /// Verifies a registration answering `challenge` (section 7.1): the client data (type `webauthn.create`, the
    /// challenge, an allowed origin, not cross-origin), the authenticator data (RP id hash, UP, UV, an attested
    /// credential whose id is the response's, a supported COSE key) and the attestation statement where the
    /// broker checks it: `none` must be empty; `packed` without a certificate (self attestation) must be signed by
    /// the credential's own key with its own algorithm. Other statements (`packed` with a certificate chain, `tpm`,
    /// `android-key`, `fido-u2f` and the platform vendors' own) are taken without verifying them: the options ask for
    /// no attestation, and the broker trusts no authenticator vendor's root (contract section 15).
    public func verifyRegistration(
        _ response: RegistrationResponse, challenge: [UInt8]
    ) throws(WebAuthnError) -> Registration {
        let clientData = try checkedClientData(response.clientDataJSON, type: "webauthn.create", challenge: challenge)
        guard let object = try? CBORDecoder.decode(response.attestationObject), object.entries != nil,
            let format = object[text: "fmt"]?.text, let statement = object[text: "attStmt"],
            let statementEntries = statement.entries, let authData = object[text: "authData"]?.bytes
        else { throw WebAuthnError(.attestation) }
        let data = try checkedAuthenticatorData(authData)
        guard let credential = data.attestedCredential, credential.credentialID == response.credentialID else {
            throw WebAuthnError(.attestedCredential)
        }
        let key = try COSEKey(credential.publicKey)
        switch format {
        case "none":
            guard statementEntries.isEmpty else { throw WebAuthnError(.attestation) }
        case "packed" where statement[text: "x5c"] == nil:
            guard statement[text: "alg"]?.integer == key.algorithm.rawValue,
                let signature = statement[text: "sig"]?.bytes,
                key.verify(signature: signature, message: authData + Digest.sha256(clientData.json))
            else { throw WebAuthnError(.attestation) }
        default:
            break
        }
        return Registration(
            credentialID: credential.credentialID, publicKey: credential.publicKeyBytes, algorithm: key.algorithm,
            signCount: data.signCount, backupEligible: data.flags.contains(.backupEligible),
            backedUp: data.flags.contains(.backedUp), attestationFormat: format)
    }

    /// Verifies an authentication answering `challenge` with the stored credential's COSE key `publicKey` and
    /// counter `storedSignCount` (section 7.2): the client data (type `webauthn.get`), the authenticator data (RP id
    /// hash, UP, UV), the signature over `authenticatorData ‖ SHA-256(clientDataJSON)`, the user handle (when
    /// `userHandle` is given, the response must carry exactly it), and the counter: when either counter is
    /// non-zero, the presented one must be above the stored one.
    public func verifyAuthentication(
        _ response: AuthenticationResponse, challenge: [UInt8], publicKey: [UInt8], storedSignCount: UInt32,
        userHandle: [UInt8]?
    ) throws(WebAuthnError) -> Assertion {
        let clientData = try checkedClientData(response.clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try checkedAuthenticatorData(response.authenticatorData)
        if let userHandle {
            guard let presented = response.userHandle, constantTimeEquals(presented, userHandle) else {
                throw WebAuthnError(.userHandle)
            }
        }
        let key = try COSEKey(bytes: publicKey)
        guard key.verify(signature: response.signature, message: data.bytes + Digest.sha256(clientData.json)) else {
            throw WebAuthnError(.signature)
        }
        if data.signCount != 0 || storedSignCount != 0, data.signCount <= storedSignCount {
            throw WebAuthnError(.counter)
        }
        return Assertion(signCount: data.signCount, backedUp: data.flags.contains(.backedUp))
    }

    /// The client data in `json`, checked for `type`, `challenge`, an allowed origin and no cross-origin frame.
    private func checkedClientData(
        _ json: [UInt8], type: String, challenge: [UInt8]
    ) throws(WebAuthnError) -> CollectedClientData {
        let clientData = try CollectedClientData(json: json)
        guard clientData.type == type else { throw WebAuthnError(.type) }
        guard !challenge.isEmpty, constantTimeEquals(clientData.challenge, challenge) else {
            throw WebAuthnError(.challenge)
        }
        guard origins.contains(clientData.origin) else { throw WebAuthnError(.origin) }
        guard !clientData.crossOrigin else { throw WebAuthnError(.crossOrigin) }
        return clientData
    }

    /// The authenticator data in `bytes`, checked for the RP id hash, user presence and user verification (and a
    /// backed-up flag only on a credential eligible for backup).
    private func checkedAuthenticatorData(_ bytes: [UInt8]) throws(WebAuthnError) -> AuthenticatorData {
        let data = try AuthenticatorData(bytes)
        guard constantTimeEquals(data.rpIDHash, rpIDHash) else { throw WebAuthnError(.rpIdHash) }
        guard data.flags.contains(.userPresent) else { throw WebAuthnError(.userPresence) }
        guard data.flags.contains(.userVerified) else { throw WebAuthnError(.userVerification) }
        guard data.flags.contains(.backupEligible) || !data.flags.contains(.backedUp) else {
            throw WebAuthnError(.authenticatorData)
        }
        return data
    }
}
