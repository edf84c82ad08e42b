public import BrokerCBOR
public import BrokerModel

/// The authenticator data of a WebAuthn ceremony (Level 3 section 6.1): the RP id hash, the flags, the signature
/// counter, and on a registration the attested credential; parsed exactly, nothing left over.
public struct AuthenticatorData: Sendable, Equatable {
    /// The flag bits (section 6.1).
    public struct Flags: OptionSet, Sendable, Equatable {
        /// The bits.
        public let rawValue: UInt8
        /// Flags from their byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: the user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (biometrics, PIN).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (synced).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now.
        public static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data follows.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// A credential made by a registration: its id and its public key as COSE bytes.
    public struct AttestedCredential: Sendable, Equatable {
        /// The authenticator model's AAGUID (16 bytes; zeros when not attested).
        public var aaguid: [UInt8]
        /// The credential id (1 to 1,023 bytes).
        public var credentialID: [UInt8]
        /// The credential's COSE public key, the bytes as they were (stored as is).
        public var publicKeyBytes: [UInt8]
        /// The same key, decoded.
        public var publicKey: CBORValue
    }

    /// The largest credential id WebAuthn allows.
    public static let maximumCredentialIDLength = 1_023

    /// The bytes as received (what the assertion signature covers).
    public var bytes: [UInt8]
    /// SHA-256 of the RP id the authenticator scoped the credential to.
    public var rpIDHash: [UInt8]
    /// The flags.
    public var flags: Flags
    /// The signature counter (0 for authenticators that do not count).
    public var signCount: UInt32
    /// The attested credential data, present exactly when the AT flag is.
    public var attestedCredential: AttestedCredential?
    /// The extension outputs, present exactly when the ED flag is.
    public var extensions: CBORValue?

    /// The authenticator data in `bytes`.
    ///
    /// - Throws: `WebAuthnError` (`authenticatorData`) when it is too short, its CBOR is malformed or above
    ///   bounds, a flag announces data that is missing, or bytes are left over; (`attestedCredential`) for a
    ///   credential id of a bad length.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37, bytes.count <= CBORLimits.webAuthn.maximumBytes else {
            throw WebAuthnError(.authenticatorData)
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw WebAuthnError(.authenticatorData) }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length >= 1, length <= Self.maximumCredentialIDLength else {
                throw WebAuthnError(.attestedCredential)
            }
            guard bytes.count >= offset + length else { throw WebAuthnError(.authenticatorData) }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            guard let (key, consumed) = try? CBORDecoder.decodeFirst(bytes[offset...]) else {
                throw WebAuthnError(.authenticatorData)
            }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyBytes: Array(bytes[offset..<offset + consumed]),
                publicKey: key)
            offset += consumed
        }
        if flags.contains(.extensionData) {
            guard let (value, consumed) = try? CBORDecoder.decodeFirst(bytes[offset...]), value.entries != nil else {
                throw WebAuthnError(.authenticatorData)
            }
            extensions = value
            offset += consumed
        }
        guard offset == bytes.count else { throw WebAuthnError(.authenticatorData) }
    }
}
