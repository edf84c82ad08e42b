import BrokerCBOR
import BrokerCore
import BrokerCrypto
import BrokerModel
import FuzzSupport

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzWebAuthn(_:_:)``.
@_cdecl("fuzz_webauthn_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzWebAuthn)
}

/// The relying party the inputs are verified against, and the client data every registration carries.
private let party = WebAuthnRelyingParty(rpID: "localhost", origins: ["http://localhost"])
private let challenge: [UInt8] = Array(repeating: 7, count: 32)
private let clientData = JSONValue.object([
    "type": .string("webauthn.create"), "challenge": .string("BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc"),
    "origin": .string("http://localhost"),
]).serialized()

/// Any bytes as CBOR (libcbor through BrokerCBOR), as authenticator data, as a COSE key, and as the attestation
/// object of a registration; then the CBOR round trip: a decoded value, encoded and decoded again, must encode to
/// the same bytes. Refusals are fine; a crash, a hang or a broken round trip is not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebAuthn(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    _ = try? AuthenticatorData(bytes)
    _ = try? COSEKey(bytes: bytes)
    _ = try? verifyRegistration(attestationObject: bytes)
    guard let value = try? CBORDecoder.decode(bytes) else { return 0 }
    let encoded = value.encoded()
    guard let again = try? CBORDecoder.decode(encoded) else {
        fuzzFailure("the encoder wrote CBOR the decoder refuses")
    }
    guard again.encoded() == encoded else { fuzzFailure("encode(decode(encode(v))) != encode(v)") }
    return 0
}

/// A registration whose attestation object is `attestationObject`, whatever its credential id.
private func verifyRegistration(attestationObject: [UInt8]) throws -> WebAuthnRelyingParty.Registration {
    let credentialID =
        (try? CBORDecoder.decode(attestationObject))?[text: "authData"]?.bytes
        .flatMap { try? AuthenticatorData($0) }?.attestedCredential?.credentialID ?? [1]
    let response = try RegistrationResponse(
        json: .object([
            "id": .string(Base64URL.encode(credentialID)), "rawId": .string(Base64URL.encode(credentialID)),
            "type": .string("public-key"),
            "response": .object([
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "attestationObject": .string(Base64URL.encode(attestationObject)),
            ]),
        ]))
    return try party.verifyRegistration(response, challenge: challenge)
}
