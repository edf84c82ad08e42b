public import Foundation

/// A new passkey, as the authenticator made it (`RegistrationResponseJSON`, WebAuthn Level 3), for
/// ``BrokerAuth/registerPasskey(credential:name:)`` and ``BrokerAuth/signUp(withPasskey:name:)``. On Apple
/// platforms `PasskeyRegistration(_:)` takes an `ASAuthorizationPlatformPublicKeyCredentialRegistration`; from a
/// browser, decode `credential.toJSON()`.
public struct PasskeyRegistration: Sendable, Equatable, Codable {
    /// The credential id (`id` and `rawId`).
    public var credentialID: Data
    /// The client data the authenticator signed over (`response.clientDataJSON`).
    public var clientDataJSON: Data
    /// The CBOR attestation object: the new public key and the authenticator data (`response.attestationObject`).
    public var attestationObject: Data
    /// How the authenticator is reached (`response.transports`).
    public var transports: [String]
    /// `platform` or `cross-platform`, when known.
    public var authenticatorAttachment: String?

    /// A registration from the authenticator's raw bytes.
    public init(
        credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = [],
        authenticatorAttachment: String? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.authenticatorAttachment = authenticatorAttachment
    }

    enum ResponseKeys: String, CodingKey { case clientDataJSON, attestationObject, transports }

    /// Decodes the WebAuthn JSON (bytes in base64url; `id` and `rawId` must agree).
    public init(from decoder: any Decoder) throws {
        let credential = try CredentialJSON(from: decoder)
        credentialID = credential.id
        authenticatorAttachment = credential.authenticatorAttachment
        let response = try credential.container.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        clientDataJSON = try response.decodeBase64URL(forKey: .clientDataJSON)
        attestationObject = try response.decodeBase64URL(forKey: .attestationObject)
        transports = try response.decodeIfPresent([String].self, forKey: .transports) ?? []
    }

    /// Encodes the WebAuthn JSON.
    public func encode(to encoder: any Encoder) throws {
        var credential = try CredentialJSON.encode(credentialID, authenticatorAttachment, to: encoder)
        var response = credential.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        try response.encode(Base64URL.encode(clientDataJSON), forKey: .clientDataJSON)
        try response.encode(Base64URL.encode(attestationObject), forKey: .attestationObject)
        try response.encode(transports, forKey: .transports)
    }
}

/// A passkey's answer to a sign-in's challenge (`AuthenticationResponseJSON`, WebAuthn Level 3), for
/// ``BrokerAuth/signIn(withPasskey:)``. On Apple platforms `PasskeyAssertion(_:)` takes an
/// `ASAuthorizationPlatformPublicKeyCredentialAssertion`; from a browser, decode `credential.toJSON()`.
public struct PasskeyAssertion: Sendable, Equatable, Codable {
    /// The credential id (`id` and `rawId`).
    public var credentialID: Data
    /// The client data the authenticator signed over (`response.clientDataJSON`).
    public var clientDataJSON: Data
    /// The authenticator data (`response.authenticatorData`).
    public var authenticatorData: Data
    /// The signature over the authenticator data and the client data's SHA-256 (`response.signature`).
    public var signature: Data
    /// The user handle stored with the passkey (`response.userHandle`).
    public var userHandle: Data?
    /// `platform` or `cross-platform`, when known.
    public var authenticatorAttachment: String?

    /// An assertion from the authenticator's raw bytes.
    public init(
        credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?,
        authenticatorAttachment: String? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.authenticatorAttachment = authenticatorAttachment
    }

    enum ResponseKeys: String, CodingKey { case clientDataJSON, authenticatorData, signature, userHandle }

    /// Decodes the WebAuthn JSON (bytes in base64url; `id` and `rawId` must agree).
    public init(from decoder: any Decoder) throws {
        let credential = try CredentialJSON(from: decoder)
        credentialID = credential.id
        authenticatorAttachment = credential.authenticatorAttachment
        let response = try credential.container.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        clientDataJSON = try response.decodeBase64URL(forKey: .clientDataJSON)
        authenticatorData = try response.decodeBase64URL(forKey: .authenticatorData)
        signature = try response.decodeBase64URL(forKey: .signature)
        userHandle = try response.decodeIfPresent(String.self, forKey: .userHandle).map { text in
            guard let bytes = Base64URL.decode(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .userHandle, in: response, debugDescription: "userHandle is not base64url")
            }
            return bytes
        }
    }

    /// Encodes the WebAuthn JSON.
    public func encode(to encoder: any Encoder) throws {
        var credential = try CredentialJSON.encode(credentialID, authenticatorAttachment, to: encoder)
        var response = credential.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        try response.encode(Base64URL.encode(clientDataJSON), forKey: .clientDataJSON)
        try response.encode(Base64URL.encode(authenticatorData), forKey: .authenticatorData)
        try response.encode(Base64URL.encode(signature), forKey: .signature)
        try response.encodeIfPresent(userHandle.map(Base64URL.encode), forKey: .userHandle)
    }
}

/// The members a `PublicKeyCredential`'s JSON has around its `response`.
struct CredentialJSON {
    enum Keys: String, CodingKey {
        case id, rawId, type, response, authenticatorAttachment, clientExtensionResults
    }

    let id: Data
    let authenticatorAttachment: String?
    let container: KeyedDecodingContainer<Keys>

    init(from decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: Keys.self)
        id = try container.decodeBase64URL(forKey: .id)
        guard try container.decodeBase64URL(forKey: .rawId) == id else {
            throw DecodingError.dataCorruptedError(forKey: .rawId, in: container, debugDescription: "rawId is not id")
        }
        authenticatorAttachment = try container.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
    }

    /// Encodes `id`, `rawId`, `type`, `authenticatorAttachment` and empty `clientExtensionResults`; the container
    /// for the caller's `response`.
    static func encode(
        _ id: Data, _ attachment: String?, to encoder: any Encoder
    ) throws -> KeyedEncodingContainer<Keys> {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(Base64URL.encode(id), forKey: .id)
        try container.encode(Base64URL.encode(id), forKey: .rawId)
        try container.encode("public-key", forKey: .type)
        try container.encodeIfPresent(attachment, forKey: .authenticatorAttachment)
        try container.encode([String: String](), forKey: .clientExtensionResults)
        return container
    }
}

/// Base64url without padding (RFC 4648 section 5), as WebAuthn's JSON writes bytes.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, nil when it is not base64url (padding is accepted).
    static func decode(_ text: String) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension KeyedDecodingContainer {
    /// The bytes of the base64url string at `key`.
    func decodeBase64URL(forKey key: Key) throws -> Data {
        guard let bytes = Base64URL.decode(try decode(String.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\(key.stringValue) is not base64url")
        }
        return bytes
    }
}
