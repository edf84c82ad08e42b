import BrokerCrypto
public import BrokerModel

/// A `RegistrationResponseJSON` (WebAuthn Level 3 section 5.1): what `navigator.credentials.create()` gave, as
/// JSON with base64url bytes.
public struct RegistrationResponse: Sendable, Equatable {
    /// The credential id (`rawId`).
    public var credentialID: [UInt8]
    /// `response.clientDataJSON`.
    public var clientDataJSON: [UInt8]
    /// `response.attestationObject`.
    public var attestationObject: [UInt8]
    /// `response.transports`, as the browser named them (`internal`, `hybrid`, `usb`…); unknown names are kept.
    public var transports: [String]

    /// The response in `json`.
    ///
    /// - Throws: `WebAuthnError` (`response`) when `type` is not `public-key`, a field is missing or not
    ///   base64url, or `id` and `rawId` differ.
    public init(json: JSONValue) throws(WebAuthnError) {
        let response = try WebAuthnJSON.credential(json)
        credentialID = response.id
        clientDataJSON = try WebAuthnJSON.bytes(response.body["clientDataJSON"])
        attestationObject = try WebAuthnJSON.bytes(response.body["attestationObject"])
        switch response.body["transports"] {
        case nil, .null?:
            transports = []
        case .array(let names)?:
            transports = try names.prefix(16).map { name throws(WebAuthnError) in
                guard let text = name.stringValue, text.utf8.count <= 32 else { throw WebAuthnError(.response) }
                return text
            }
        default:
            throw WebAuthnError(.response)
        }
    }
}

/// An `AuthenticationResponseJSON` (WebAuthn Level 3 section 5.1): what `navigator.credentials.get()` gave.
public struct AuthenticationResponse: Sendable, Equatable {
    /// The credential id (`rawId`).
    public var credentialID: [UInt8]
    /// `response.clientDataJSON`.
    public var clientDataJSON: [UInt8]
    /// `response.authenticatorData`.
    public var authenticatorData: [UInt8]
    /// `response.signature`.
    public var signature: [UInt8]
    /// `response.userHandle`, the `user.id` of the registration; nil when the authenticator sent none.
    public var userHandle: [UInt8]?

    /// The response in `json`.
    ///
    /// - Throws: `WebAuthnError` (`response`) as `RegistrationResponse` does.
    public init(json: JSONValue) throws(WebAuthnError) {
        let response = try WebAuthnJSON.credential(json)
        credentialID = response.id
        clientDataJSON = try WebAuthnJSON.bytes(response.body["clientDataJSON"])
        authenticatorData = try WebAuthnJSON.bytes(response.body["authenticatorData"])
        signature = try WebAuthnJSON.bytes(response.body["signature"])
        switch response.body["userHandle"] {
        case nil, .null?: userHandle = nil
        case let value?: userHandle = try WebAuthnJSON.bytes(value)
        }
    }
}

/// The shared reading of a `PublicKeyCredential`'s JSON.
enum WebAuthnJSON {
    /// The largest base64url field read.
    static let maximumFieldLength = 90_000

    /// The credential id (`rawId`, equal to `id`) and the `response` object of a credential's JSON.
    static func credential(_ json: JSONValue) throws(WebAuthnError) -> (id: [UInt8], body: JSONValue) {
        guard json["type"]?.stringValue == "public-key", let id = json["id"]?.stringValue,
            json["rawId"]?.stringValue == id, let body = json["response"], case .object = body
        else { throw WebAuthnError(.response) }
        let bytes = try Self.bytes(.string(id))
        guard !bytes.isEmpty, bytes.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw WebAuthnError(.response)
        }
        return (bytes, body)
    }

    /// The bytes of a base64url string field.
    static func bytes(_ value: JSONValue?) throws(WebAuthnError) -> [UInt8] {
        guard let text = value?.stringValue, text.utf8.count <= maximumFieldLength,
            let bytes = Base64URL.decode(text)
        else { throw WebAuthnError(.response) }
        return bytes
    }
}
