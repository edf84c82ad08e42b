import BrokerCrypto
public import BrokerModel

/// The client data a browser or platform signs over (WebAuthn Level 3 section 5.8.1): the ceremony's type, its
/// challenge, the origin that ran it, and whether that was in a cross-origin frame.
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get`.
    public var type: String
    /// The challenge, decoded from base64url.
    public var challenge: [UInt8]
    /// The origin of the page or app (`https://example.com`, `android:apk-key-hash:…`).
    public var origin: String
    /// Whether the ceremony ran in a frame whose origin differs from its top-level one.
    public var crossOrigin: Bool
    /// The bytes as received; the signatures cover their SHA-256.
    public var json: [UInt8]

    /// The largest `clientDataJSON` read (a real one is a few hundred bytes).
    public static let maximumLength = 8_192

    /// The client data in the JSON bytes `json`.
    ///
    /// - Throws: `WebAuthnError` (`clientData`) when it is not an object with string `type`, `challenge` (base64url)
    ///   and `origin`, or `crossOrigin` is not a boolean.
    public init(json: [UInt8]) throws(WebAuthnError) {
        guard json.count <= Self.maximumLength, let value = JSONValue.parse(json), case .object(let members) = value,
            let type = members["type"]?.stringValue, let encoded = members["challenge"]?.stringValue,
            let challenge = Base64URL.decode(encoded), let origin = members["origin"]?.stringValue
        else { throw WebAuthnError(.clientData) }
        var crossOrigin = false
        switch members["crossOrigin"] {
        case nil, .null?: break
        case .bool(let flag)?: crossOrigin = flag
        default: throw WebAuthnError(.clientData)
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.json = json
    }
}
