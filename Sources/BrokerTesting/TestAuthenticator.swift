public import BrokerCBOR
import BrokerCore
import BrokerCrypto
public import BrokerModel

/// A passkey authenticator in software, for tests: it makes one credential and answers registration and
/// authentication ceremonies with WebAuthn Level 3 JSON (`RegistrationResponseJSON`, `AuthenticationResponseJSON`),
/// encoding its CBOR with libcbor. `TestCeremony` bends any part of an answer, so that every check has a refusal.
public struct TestAuthenticator: Sendable {
    /// The key the credential has.
    public enum KeyKind: Sendable, CaseIterable {
        /// ES256 (-7) on P-256.
        case es256
        /// Ed25519 under its fully specified identifier (-19).
        case ed25519
        /// Ed25519 under the older EdDSA identifier (-8).
        case edDSA
        /// RS256 (-257) with a 2048-bit key.
        case rs256
    }

    private enum Signer: Sendable {
        case p256(P256PrivateKey)
        case ed25519(Ed25519PrivateKey)
        case rsa(RSAPrivateKey)
    }

    /// The credential's key kind.
    public let kind: KeyKind
    /// The credential id (16 random bytes).
    public let credentialID: [UInt8]
    /// The RP id it is scoped to.
    public var rpID: String
    /// The origin its "browser" reports.
    public var origin: String
    /// The signature counter it reports next (it adds `counterStep` after each signature).
    public var signCount: UInt32
    /// How much the counter advances per signature; 0 for an authenticator that does not count.
    public var counterStep: UInt32
    /// The user handle it stored at registration (`user.id` of the options).
    public var userHandle: [UInt8]?
    private let signer: Signer

    /// A new authenticator with a fresh `kind` key for `rpID`, reporting `origin`.
    public init(
        _ kind: KeyKind = .es256, rpID: String = "localhost", origin: String = "http://localhost",
        signCount: UInt32 = 0, counterStep: UInt32 = 1
    ) throws {
        self.kind = kind
        self.rpID = rpID
        self.origin = origin
        self.signCount = signCount
        self.counterStep = counterStep
        credentialID = SecureRandom.bytes(16)
        switch kind {
        case .es256: signer = .p256(try P256PrivateKey.generate())
        case .ed25519, .edDSA: signer = .ed25519(try Ed25519PrivateKey.generate())
        case .rs256: signer = .rsa(try RSAPrivateKey.generate(bits: 2048))
        }
    }

    /// The COSE algorithm of the credential.
    public var algorithm: Int64 {
        switch kind {
        case .es256: -7
        case .ed25519: -19
        case .edDSA: -8
        case .rs256: -257
        }
    }

    /// The credential's public key as a COSE map.
    public var coseKey: CBORValue {
        switch signer {
        case .p256(let key):
            .map([
                CBORMapEntry(.integer(1), .integer(2)), CBORMapEntry(.integer(3), .integer(algorithm)),
                CBORMapEntry(.integer(-1), .integer(1)), CBORMapEntry(.integer(-2), .bytes(key.publicKey.x)),
                CBORMapEntry(.integer(-3), .bytes(key.publicKey.y)),
            ])
        case .ed25519(let key):
            .map([
                CBORMapEntry(.integer(1), .integer(1)), CBORMapEntry(.integer(3), .integer(algorithm)),
                CBORMapEntry(.integer(-1), .integer(6)), CBORMapEntry(.integer(-2), .bytes(key.publicKey.bytes)),
            ])
        case .rsa(let key):
            .map([
                CBORMapEntry(.integer(1), .integer(3)), CBORMapEntry(.integer(3), .integer(algorithm)),
                CBORMapEntry(.integer(-1), .bytes(key.publicKey.modulus)),
                CBORMapEntry(.integer(-2), .bytes(key.publicKey.exponent)),
            ])
        }
    }

    /// The signature of `message` in WebAuthn's encoding for the key (DER for ES256).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch signer {
        case .p256(let key): try key.signSHA256DER(message)
        case .ed25519(let key): try key.sign(message)
        case .rsa(let key): try key.signSHA256(message)
        }
    }

    /// `clientDataJSON` for a ceremony of `type` with `challenge`, bent by `ceremony`.
    public func clientDataJSON(type: String, challenge: [UInt8], _ ceremony: TestCeremony) -> [UInt8] {
        var members: [String: JSONValue] = [
            "type": .string(ceremony.type ?? type),
            "challenge": .string(Base64URL.encode(ceremony.challenge ?? challenge)),
            "origin": .string(ceremony.origin ?? origin), "crossOrigin": .bool(ceremony.crossOrigin),
        ]
        if let extra = ceremony.clientDataOverride { members = extra }
        return JSONValue.object(members).serialized()
    }

    /// Authenticator data with `flags`, the counter and, for a registration, the attested credential.
    public func authenticatorData(flags: UInt8, signCount: UInt32, attested: Bool, _ ceremony: TestCeremony) -> [UInt8]
    {
        var bytes = Digest.sha256(ceremony.rpID ?? rpID)
        bytes.append(attested ? flags | 0x40 : flags)
        bytes += [
            UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF),
            UInt8(signCount & 0xFF),
        ]
        if attested {
            let id = ceremony.attestedCredentialID ?? credentialID
            bytes += [UInt8](repeating: 0, count: 16) + [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id
            bytes += (ceremony.coseKey ?? coseKey).encoded()
        }
        return bytes + ceremony.trailingAuthenticatorData
    }

    /// The `RegistrationResponseJSON` answering creation options with `challenge` for the user `userHandle`;
    /// the authenticator keeps the handle and advances its counter.
    public mutating func register(
        challenge: [UInt8], userHandle: [UInt8], _ ceremony: TestCeremony = TestCeremony()
    ) throws -> JSONValue {
        self.userHandle = userHandle
        let clientData = clientDataJSON(type: "webauthn.create", challenge: challenge, ceremony)
        let count = ceremony.signCount ?? signCount
        let authData = authenticatorData(flags: ceremony.flags, signCount: count, attested: true, ceremony)
        let statement: CBORValue
        switch ceremony.format {
        case "packed":
            let signature = try sign(authData + Digest.sha256(clientData))
            statement =
                ceremony.statement
                ?? .map([
                    CBORMapEntry(.text("alg"), .integer(algorithm)), CBORMapEntry(.text("sig"), .bytes(signature)),
                ])
        default:
            statement = ceremony.statement ?? .map([])
        }
        let object = CBORValue.map([
            CBORMapEntry(.text("fmt"), .text(ceremony.format)), CBORMapEntry(.text("attStmt"), statement),
            CBORMapEntry(.text("authData"), .bytes(authData)),
        ])
        signCount = count &+ counterStep
        return credentialJSON(
            [
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "attestationObject": .string(Base64URL.encode(ceremony.attestationObject ?? object.encoded())),
                "transports": .array([.string("internal")]),
            ], ceremony)
    }

    /// The `AuthenticationResponseJSON` answering request options with `challenge`; the counter advances.
    public mutating func authenticate(
        challenge: [UInt8], _ ceremony: TestCeremony = TestCeremony()
    ) throws -> JSONValue {
        let clientData = clientDataJSON(type: "webauthn.get", challenge: challenge, ceremony)
        let count = ceremony.signCount ?? signCount
        let authData = authenticatorData(flags: ceremony.flags, signCount: count, attested: false, ceremony)
        var signature = try sign(authData + Digest.sha256(clientData))
        if ceremony.corruptSignature { signature[signature.count / 2] ^= 0x01 }
        signCount = count &+ counterStep
        var body: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientData)),
            "authenticatorData": .string(Base64URL.encode(authData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let handle = ceremony.userHandle ?? userHandle { body["userHandle"] = .string(Base64URL.encode(handle)) }
        return credentialJSON(body, ceremony)
    }

    private func credentialJSON(_ body: [String: JSONValue], _ ceremony: TestCeremony) -> JSONValue {
        let id = Base64URL.encode(ceremony.responseCredentialID ?? credentialID)
        return .object([
            "id": .string(id), "rawId": .string(id), "type": .string("public-key"), "response": .object(body),
            "authenticatorAttachment": .string("platform"), "clientExtensionResults": .object([:]),
        ])
    }
}

/// How a `TestAuthenticator` bends one answer; the defaults answer honestly with UP and UV set.
public struct TestCeremony: Sendable {
    /// The client data's `type` instead of the ceremony's.
    public var type: String?
    /// The client data's challenge instead of the one given.
    public var challenge: [UInt8]?
    /// The client data's origin instead of the authenticator's.
    public var origin: String?
    /// The client data's `crossOrigin`.
    public var crossOrigin = false
    /// The whole client data object instead of the honest one.
    public var clientDataOverride: [String: JSONValue]?
    /// The RP id whose hash the authenticator data carries.
    public var rpID: String?
    /// The flags byte (AT is added on a registration): UP and UV by default.
    public var flags: UInt8 = 0x05
    /// The counter to report instead of the authenticator's own.
    public var signCount: UInt32?
    /// The attestation format (`none`, `packed` self attestation, or any other name with `statement`).
    public var format = "none"
    /// The attestation statement instead of the honest one.
    public var statement: CBORValue?
    /// The whole attestation object instead of the honest one.
    public var attestationObject: [UInt8]?
    /// The COSE key in the attested credential instead of the real one.
    public var coseKey: CBORValue?
    /// The credential id in the attested credential instead of the real one.
    public var attestedCredentialID: [UInt8]?
    /// The credential id of the response's `id` and `rawId` instead of the real one.
    public var responseCredentialID: [UInt8]?
    /// Bytes appended to the authenticator data.
    public var trailingAuthenticatorData: [UInt8] = []
    /// Flip a bit of the assertion signature.
    public var corruptSignature = false
    /// The assertion's `userHandle` instead of the stored one.
    public var userHandle: [UInt8]?

    /// An honest ceremony.
    public init() {}
}
