public import Foundation

/// A credential named in options (`PublicKeyCredentialDescriptorJSON`): one to exclude from a registration or to
/// allow in a sign-in.
public struct PasskeyCredentialDescriptor: Sendable, Equatable, Codable {
    /// The credential id.
    public var id: Data
    /// `public-key`.
    public var type: String
    /// How the authenticator is reached (`internal`, `hybrid`, …), when known.
    public var transports: [String]?

    /// A descriptor of the credential `id`.
    public init(id: Data, type: String = "public-key", transports: [String]? = nil) {
        self.id = id
        self.type = type
        self.transports = transports
    }

    enum CodingKeys: String, CodingKey { case id, type, transports }

    /// Decodes the WebAuthn JSON (the id in base64url).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeBase64URL(forKey: .id)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "public-key"
        transports = try container.decodeIfPresent([String].self, forKey: .transports)
    }

    /// Encodes the WebAuthn JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64URL.encode(id), forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(transports, forKey: .transports)
    }
}

/// The options of a passkey registration (`PublicKeyCredentialCreationOptionsJSON`, WebAuthn Level 3), the
/// `publicKey` member of `POST /v1/me/passkeys/options` and `POST /v1/signup/passkey/options`. Hand it to the
/// platform: on Apple platforms `platformRequest()`, in a browser or web view its JSON
/// (`PublicKeyCredential.parseCreationOptionsFromJSON`). Its challenge works once, for 5 minutes.
public struct PasskeyRegistrationOptions: Sendable, Equatable, Codable {
    /// The relying party (`rp`): its id is the broker's `passkeys.rpId`, the domain passkeys are scoped to.
    public struct RelyingParty: Sendable, Equatable, Codable {
        /// `passkeys.rpId`.
        public var id: String
        /// The name authenticators show (`passkeys.rpName`).
        public var name: String
    }

    /// The account the passkey is for (`user`).
    public struct User: Sendable, Equatable, Codable {
        /// The account's user handle (random bytes, not the uid): the authenticator stores it and gives it back.
        public var id: Data
        /// The name the passkey is listed under (the email, else the display name, else the uid).
        public var name: String
        /// The name shown beside it.
        public var displayName: String

        enum CodingKeys: String, CodingKey { case id, name, displayName }

        /// Decodes the WebAuthn JSON (the id in base64url).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeBase64URL(forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            displayName = try container.decodeIfPresent(String.self, forKey: .displayName) ?? ""
        }

        /// Encodes the WebAuthn JSON.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Base64URL.encode(id), forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(displayName, forKey: .displayName)
        }
    }

    /// A key type the broker takes (`pubKeyCredParams`).
    public struct CredentialParameter: Sendable, Equatable, Codable {
        /// `public-key`.
        public var type: String
        /// The COSE algorithm: -7 (ES256), -19 and -8 (Ed25519), -257 (RS256).
        public var algorithm: Int

        enum CodingKeys: String, CodingKey { case type, algorithm = "alg" }
    }

    /// What the authenticator must do (`authenticatorSelection`).
    public struct AuthenticatorSelection: Sendable, Equatable, Codable {
        /// `required`: a discoverable credential, so the sign-in needs no user name.
        public var residentKey: String?
        /// `true`, the older spelling of the same.
        public var requireResidentKey: Bool?
        /// `required`: Face ID, Touch ID or the device passcode, so a passkey is both factors.
        public var userVerification: String?
        /// `platform` or `cross-platform`, when the broker asks for one.
        public var authenticatorAttachment: String?
    }

    /// The challenge (32 random bytes).
    public var challenge: Data
    /// The relying party (`rp`).
    public var relyingParty: RelyingParty
    /// The account (`user`).
    public var user: User
    /// The key types the broker takes, in its order of preference (`pubKeyCredParams`).
    public var credentialParameters: [CredentialParameter]
    /// How long the ceremony may take, in milliseconds.
    public var timeout: Int?
    /// The account's passkeys already registered (`excludeCredentials`): an authenticator holding one declines.
    public var excludedCredentials: [PasskeyCredentialDescriptor]
    /// What the authenticator must do.
    public var authenticatorSelection: AuthenticatorSelection?
    /// The attestation asked for: `none`.
    public var attestation: String?

    enum CodingKeys: String, CodingKey {
        case challenge, relyingParty = "rp", user, credentialParameters = "pubKeyCredParams", timeout
        case excludedCredentials = "excludeCredentials", authenticatorSelection, attestation
    }

    /// Decodes the WebAuthn JSON (bytes in base64url).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try container.decodeBase64URL(forKey: .challenge)
        relyingParty = try container.decode(RelyingParty.self, forKey: .relyingParty)
        user = try container.decode(User.self, forKey: .user)
        credentialParameters =
            try container.decodeIfPresent([CredentialParameter].self, forKey: .credentialParameters) ?? []
        timeout = try container.decodeIfPresent(Int.self, forKey: .timeout)
        excludedCredentials =
            try container.decodeIfPresent([PasskeyCredentialDescriptor].self, forKey: .excludedCredentials) ?? []
        authenticatorSelection = try container.decodeIfPresent(
            AuthenticatorSelection.self, forKey: .authenticatorSelection)
        attestation = try container.decodeIfPresent(String.self, forKey: .attestation)
    }

    /// Encodes the WebAuthn JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64URL.encode(challenge), forKey: .challenge)
        try container.encode(relyingParty, forKey: .relyingParty)
        try container.encode(user, forKey: .user)
        try container.encode(credentialParameters, forKey: .credentialParameters)
        try container.encodeIfPresent(timeout, forKey: .timeout)
        try container.encode(excludedCredentials, forKey: .excludedCredentials)
        try container.encodeIfPresent(authenticatorSelection, forKey: .authenticatorSelection)
        try container.encodeIfPresent(attestation, forKey: .attestation)
    }
}

/// The options of a passkey sign-in (`PublicKeyCredentialRequestOptionsJSON`, WebAuthn Level 3), the `publicKey`
/// member of `POST /v1/signin/passkey/options`: a discoverable sign-in, so no credential is named and the
/// authenticator offers the user's passkeys for the relying party. Its challenge works once, for 5 minutes.
public struct PasskeySignInOptions: Sendable, Equatable, Codable {
    /// The challenge (32 random bytes).
    public var challenge: Data
    /// The relying party's id (`rpId`): the broker's `passkeys.rpId`.
    public var relyingPartyID: String
    /// How long the ceremony may take, in milliseconds.
    public var timeout: Int?
    /// `required`: Face ID, Touch ID or the device passcode.
    public var userVerification: String?
    /// The credentials allowed (`allowCredentials`): empty, any of the user's.
    public var allowedCredentials: [PasskeyCredentialDescriptor]

    enum CodingKeys: String, CodingKey {
        case challenge, relyingPartyID = "rpId", timeout, userVerification, allowedCredentials = "allowCredentials"
    }

    /// Decodes the WebAuthn JSON (bytes in base64url).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try container.decodeBase64URL(forKey: .challenge)
        relyingPartyID = try container.decode(String.self, forKey: .relyingPartyID)
        timeout = try container.decodeIfPresent(Int.self, forKey: .timeout)
        userVerification = try container.decodeIfPresent(String.self, forKey: .userVerification)
        allowedCredentials =
            try container.decodeIfPresent([PasskeyCredentialDescriptor].self, forKey: .allowedCredentials) ?? []
    }

    /// Encodes the WebAuthn JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64URL.encode(challenge), forKey: .challenge)
        try container.encode(relyingPartyID, forKey: .relyingPartyID)
        try container.encodeIfPresent(timeout, forKey: .timeout)
        try container.encodeIfPresent(userVerification, forKey: .userVerification)
        try container.encode(allowedCredentials, forKey: .allowedCredentials)
    }
}
