import BrokerCBOR
import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerTesting
import Testing

@Suite("WebAuthn verification (Level 3, sections 7.1 and 7.2)")
struct WebAuthnVerificationTests {
    static let party = WebAuthnRelyingParty(rpID: "localhost", origins: ["http://localhost", "https://example.com"])
    static let challenge = Array(repeating: UInt8(7), count: 32)
    static let handle: [UInt8] = Array(1...16)

    /// A registration of `authenticator` bent by `ceremony`, verified.
    static func register(
        _ authenticator: inout TestAuthenticator, _ ceremony: TestCeremony = TestCeremony()
    ) throws -> WebAuthnRelyingParty.Registration {
        let json = try authenticator.register(challenge: challenge, userHandle: handle, ceremony)
        return try party.verifyRegistration(RegistrationResponse(json: json), challenge: challenge)
    }

    /// An authentication of `authenticator` bent by `ceremony`, verified against `registration`.
    static func authenticate(
        _ authenticator: inout TestAuthenticator, _ registration: WebAuthnRelyingParty.Registration,
        storedSignCount: UInt32? = nil, _ ceremony: TestCeremony = TestCeremony()
    ) throws -> WebAuthnRelyingParty.Assertion {
        let json = try authenticator.authenticate(challenge: challenge, ceremony)
        return try party.verifyAuthentication(
            AuthenticationResponse(json: json), challenge: challenge, publicKey: registration.publicKey,
            storedSignCount: storedSignCount ?? registration.signCount, userHandle: handle)
    }

    @Test(arguments: TestAuthenticator.KeyKind.allCases)
    func registersAndAuthenticatesWithEveryKey(kind: TestAuthenticator.KeyKind) throws {
        var authenticator = try TestAuthenticator(kind)
        let registration = try Self.register(&authenticator)
        #expect(registration.credentialID == authenticator.credentialID)
        #expect(registration.algorithm.rawValue == authenticator.algorithm)
        #expect(registration.signCount == 0)
        #expect(registration.attestationFormat == "none")
        #expect(try COSEKey(bytes: registration.publicKey).algorithm == registration.algorithm)
        let assertion = try Self.authenticate(&authenticator, registration)
        #expect(assertion.signCount == 1)
        let second = try Self.authenticate(&authenticator, registration, storedSignCount: assertion.signCount)
        #expect(second.signCount == 2)
    }

    @Test(arguments: TestAuthenticator.KeyKind.allCases)
    func packedSelfAttestationVerifies(kind: TestAuthenticator.KeyKind) throws {
        var authenticator = try TestAuthenticator(kind)
        var ceremony = TestCeremony()
        ceremony.format = "packed"
        let registration = try Self.register(&authenticator, ceremony)
        #expect(registration.attestationFormat == "packed")
    }

    @Test func backupFlagsAreReported() throws {
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        ceremony.flags = 0x05 | 0x08 | 0x10
        let registration = try Self.register(&authenticator, ceremony)
        #expect(registration.backupEligible)
        #expect(registration.backedUp)
        #expect(try Self.authenticate(&authenticator, registration, ceremony).backedUp)
    }

    @Test func anAuthenticatorThatDoesNotCountSignsInWithZeros() throws {
        var authenticator = try TestAuthenticator(counterStep: 0)
        let registration = try Self.register(&authenticator)
        #expect(try Self.authenticate(&authenticator, registration).signCount == 0)
        #expect(try Self.authenticate(&authenticator, registration).signCount == 0)
    }

    @Test func otherAttestationFormatsAreTakenUnverified() throws {
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        ceremony.format = "tpm"
        ceremony.statement = .map([CBORMapEntry(.text("ver"), .text("2.0"))])
        #expect(try Self.register(&authenticator, ceremony).attestationFormat == "tpm")
    }

    /// One registration refusal: how the ceremony is bent, and the check that must refuse it.
    struct Bent: Sendable, CustomTestStringConvertible {
        var name: String
        var check: WebAuthnError.Check
        var bend: @Sendable (inout TestCeremony) -> Void
        var testDescription: String { name }
    }

    static let registrationRefusals: [Bent] = [
        Bent(name: "type webauthn.get", check: .type) { $0.type = "webauthn.get" },
        Bent(name: "another challenge", check: .challenge) { $0.challenge = Array(repeating: 8, count: 32) },
        Bent(name: "another origin", check: .origin) { $0.origin = "https://evil.example" },
        Bent(name: "cross-origin", check: .crossOrigin) { $0.crossOrigin = true },
        Bent(name: "client data without origin", check: .clientData) {
            $0.clientDataOverride = ["type": .string("webauthn.create"), "challenge": .string("BwcH")]
        },
        Bent(name: "another RP id", check: .rpIdHash) { $0.rpID = "example.com" },
        Bent(name: "no UP", check: .userPresence) { $0.flags = 0x04 },
        Bent(name: "no UV", check: .userVerification) { $0.flags = 0x01 },
        Bent(name: "BS without BE", check: .authenticatorData) { $0.flags = 0x05 | 0x10 },
        Bent(name: "trailing authenticator data", check: .authenticatorData) { $0.trailingAuthenticatorData = [0] },
        Bent(name: "another credential id inside", check: .attestedCredential) { $0.attestedCredentialID = [1, 2, 3] },
        Bent(name: "an ES384 key", check: .unsupportedKey) {
            $0.coseKey = .map([CBORMapEntry(.integer(1), .integer(2)), CBORMapEntry(.integer(3), .integer(-35))])
        },
        Bent(name: "a P-256 point off the curve", check: .unsupportedKey) {
            $0.coseKey = .map([
                CBORMapEntry(.integer(1), .integer(2)), CBORMapEntry(.integer(3), .integer(-7)),
                CBORMapEntry(.integer(-1), .integer(1)),
                CBORMapEntry(.integer(-2), .bytes(Array(repeating: 1, count: 32))),
                CBORMapEntry(.integer(-3), .bytes(Array(repeating: 2, count: 32))),
            ])
        },
        Bent(name: "none with a statement", check: .attestation) {
            $0.statement = .map([CBORMapEntry(.text("sig"), .bytes([1]))])
        },
        Bent(name: "packed self with a wrong signature", check: .attestation) {
            $0.format = "packed"
            $0.statement = .map([
                CBORMapEntry(.text("alg"), .integer(-7)),
                CBORMapEntry(.text("sig"), .bytes(Array(repeating: 3, count: 70))),
            ])
        },
        Bent(name: "packed self with another algorithm", check: .attestation) {
            $0.format = "packed"
            $0.statement = .map([CBORMapEntry(.text("alg"), .integer(-257)), CBORMapEntry(.text("sig"), .bytes([1]))])
        },
        Bent(name: "attestation object not CBOR", check: .attestation) { $0.attestationObject = [0xff, 0x00] },
        Bent(name: "attestation object without authData", check: .attestation) {
            $0.attestationObject = CBORValue.map([
                CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .map([])),
            ]).encoded()
        },
    ]

    @Test(arguments: registrationRefusals)
    func registrationRefuses(_ bent: Bent) throws {
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        bent.bend(&ceremony)
        #expect(throws: WebAuthnError(bent.check)) { try Self.register(&authenticator, ceremony) }
    }

    @Test func aResponseWhoseIDIsNotTheCredentialsIsRefused() throws {
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        ceremony.responseCredentialID = [9, 9, 9]
        #expect(throws: WebAuthnError(.attestedCredential)) { try Self.register(&authenticator, ceremony) }
    }

    static let authenticationRefusals: [Bent] = [
        Bent(name: "type webauthn.create", check: .type) { $0.type = "webauthn.create" },
        Bent(name: "another challenge", check: .challenge) { $0.challenge = [1] },
        Bent(name: "another origin", check: .origin) { $0.origin = "http://localhost:8080" },
        Bent(name: "cross-origin", check: .crossOrigin) { $0.crossOrigin = true },
        Bent(name: "another RP id", check: .rpIdHash) { $0.rpID = "evil.example" },
        Bent(name: "no UP", check: .userPresence) { $0.flags = 0x04 },
        Bent(name: "no UV", check: .userVerification) { $0.flags = 0x01 },
        Bent(name: "a corrupt signature", check: .signature) { $0.corruptSignature = true },
        Bent(name: "another user handle", check: .userHandle) { $0.userHandle = [0] },
        Bent(name: "a counter not above the stored one", check: .counter) { $0.signCount = 5 },
        Bent(name: "a zero counter after a non-zero one", check: .counter) { $0.signCount = 0 },
        Bent(name: "trailing bytes", check: .authenticatorData) { $0.trailingAuthenticatorData = [1, 2] },
    ]

    @Test(arguments: authenticationRefusals)
    func authenticationRefuses(_ bent: Bent) throws {
        var authenticator = try TestAuthenticator()
        let registration = try Self.register(&authenticator)
        var ceremony = TestCeremony()
        bent.bend(&ceremony)
        #expect(throws: WebAuthnError(bent.check)) {
            try Self.authenticate(&authenticator, registration, storedSignCount: 5, ceremony)
        }
    }

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        var authenticator = try TestAuthenticator()
        let registration = try Self.register(&authenticator)
        var other = try TestAuthenticator(.ed25519)
        other.userHandle = Self.handle
        let json = try other.authenticate(challenge: Self.challenge)
        #expect(throws: WebAuthnError(.signature)) {
            try Self.party.verifyAuthentication(
                AuthenticationResponse(json: json), challenge: Self.challenge, publicKey: registration.publicKey,
                storedSignCount: 0, userHandle: Self.handle)
        }
    }

    @Test func aMissingUserHandleIsRefusedWhenOneIsExpected() throws {
        var authenticator = try TestAuthenticator()
        let registration = try Self.register(&authenticator)
        authenticator.userHandle = nil
        #expect(throws: WebAuthnError(.userHandle)) { try Self.authenticate(&authenticator, registration) }
    }

    static let malformedResponses: [JSONValue] = [
        .object([:]), .string("x"),
        .object(["id": .string("AQ"), "rawId": .string("AQ"), "type": .string("password"), "response": .object([:])]),
        .object(["id": .string("AQ"), "rawId": .string("Ag"), "type": .string("public-key"), "response": .object([:])]),
        .object([
            "id": .string("AQ"), "rawId": .string("AQ"), "type": .string("public-key"),
            "response": .object([
                "clientDataJSON": .string("!!"), "attestationObject": .string("oA"),
            ]),
        ]),
    ]

    @Test(arguments: malformedResponses)
    func malformedResponsesAreRefused(json: JSONValue) {
        #expect(throws: WebAuthnError(.response)) { try RegistrationResponse(json: json) }
        #expect(throws: WebAuthnError(.response)) { try AuthenticationResponse(json: json) }
    }

    @Test func authenticatorDataIsParsedExactly() throws {
        let authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        let bytes = authenticator.authenticatorData(flags: 0x05, signCount: 0x0102_0304, attested: true, ceremony)
        let data = try AuthenticatorData(bytes)
        #expect(data.rpIDHash == Digest.sha256("localhost"))
        #expect(data.flags == [.userPresent, .userVerified, .attestedCredentialData])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredential?.credentialID == authenticator.credentialID)
        #expect(data.attestedCredential?.publicKey == authenticator.coseKey)
        #expect(throws: WebAuthnError(.authenticatorData)) { try AuthenticatorData(Array(bytes.prefix(36))) }
        #expect(throws: WebAuthnError(.authenticatorData)) { try AuthenticatorData(Array(bytes.dropLast())) }
        ceremony.attestedCredentialID = []
        #expect(throws: WebAuthnError(.attestedCredential)) {
            try AuthenticatorData(authenticator.authenticatorData(flags: 0x05, signCount: 0, attested: true, ceremony))
        }
        // ED announced with no extensions after it.
        #expect(throws: WebAuthnError(.authenticatorData)) {
            try AuthenticatorData(
                authenticator.authenticatorData(flags: 0x85, signCount: 0, attested: false, TestCeremony()))
        }
    }
}
