import BrokerCore
import BrokerCrypto
public import BrokerIdentity
public import BrokerModel
import BrokerTesting
import Foundation
import FuzzSupport

/// The app, built once per process.
let broker = FuzzBroker.make()

/// Google's rules, as the stub config sets them, and the stub's Google key as the only key.
let verifier = IDTokenVerifier(
    keys: FixedKeys(keys: [KeyID(broker.stubs.google.current.id): broker.stubs.google.current.key.publicKey]),
    rules: IDTokenRules(
        issuers: ["https://accounts.google.com"], audiences: [StubProviders.googleAudience], clockSkew: 60,
        nonce: .optional),
    clock: broker.clock)

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzJWT(_:_:)``.
@_cdecl("fuzz_jwt_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzJWT)
}

/// JWT decoding and verification. The first byte picks the mode:
///
/// - even: the rest is a token as sent: `JWT(parsing:)`, `IDTokenVerifier.verify` (Google's rules, the stub's
///   key), the broker's own `SessionService.verifyIDToken` and `authenticateWithAccount(idToken:)`, and
///   `GET /v1/me` with it;
/// - odd: the rest is `header NUL claims NUL rawNonce`, raw bytes the harness base64url-encodes and signs with a
///   key the verifier trusts (the second byte picks Google's, Apple's, Kakao's or the broker's own), so that the
///   claims checks after the signature are reached (`$KID` in the header becomes the signing key's id, which is
///   new in each process); the token then signs in (`POST /v1/signin/{provider}`) or
///   calls `GET /v1/me`. No answer may be a 500.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard let mode = bytes.first else { return 0 }
    if mode % 2 == 0 {
        let token = String(decoding: bytes.dropFirst(), as: UTF8.self)
        runBlocking { await checkRaw(token) }
    } else {
        guard bytes.count >= 2 else { return 0 }
        let parts = fuzzParts(Array(bytes.dropFirst(2)), limit: 3)
        let nonce = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : nil
        runBlocking {
            await checkSigned(
                signer: Int(bytes[1]) % 4, header: parts[0], claims: parts.count > 1 ? parts[1] : [], rawNonce: nonce)
        }
    }
    return 0
}

func checkRaw(_ token: String) async {
    _ = try? JWT(parsing: token)
    _ = try? await verifier.verify(token, rawNonce: nil)
    _ = try? await broker.services.sessions.verifyIDToken(token)
    _ = try? await broker.services.sessions.authenticateWithAccount(idToken: token)
    await broker.handle(HTTPRequest(method: "GET", path: "/v1/me", headers: ["Authorization": "Bearer " + token]))
}

func checkSigned(signer: Int, header: [UInt8], claims: [UInt8], rawNonce: String?) async {
    let provider = ["google", "apple", "kakao", "broker"][signer]
    let input: String
    let signature: [UInt8]
    do {
        if provider == "broker" {
            let key = try await broker.services.keys.current()
            input = Base64URL.encode(naming(key.id.rawValue, in: header)) + "." + Base64URL.encode(claims)
            signature = try key.sign(Array(input.utf8))
        } else {
            guard let keys = broker.stubs.keys(provider) else { fuzzFailure("no stub keys for \(provider)") }
            input = Base64URL.encode(naming(keys.current.id, in: header)) + "." + Base64URL.encode(claims)
            signature = try keys.current.key.signSHA256(Array(input.utf8))
        }
    } catch {
        fuzzFailure("signing failed: \(error)")
    }
    let token = input + "." + Base64URL.encode(signature)
    if provider == "broker" {
        _ = try? await broker.services.sessions.verifyIDToken(token)
        await broker.handle(HTTPRequest(method: "GET", path: "/v1/me", headers: ["Authorization": "Bearer " + token]))
        return
    }
    if provider == "google" { _ = try? await verifier.verify(token, rawNonce: rawNonce) }
    var body: [String: JSONValue] = [provider == "apple" ? "identityToken" : "idToken": .string(token)]
    if let rawNonce { body["rawNonce"] = .string(rawNonce) }
    await broker.handle(
        HTTPRequest(
            method: "POST", path: "/v1/signin/" + provider, headers: ["Content-Type": "application/json"],
            body: JSONValue.object(body).serialized()))
}

/// `header` with its first `$KID` replaced by `kid`.
func naming(_ kid: String, in header: [UInt8]) -> [UInt8] {
    let mark = Array("$KID".utf8)
    guard header.count >= mark.count,
        let at = (0...(header.count - mark.count)).first(where: { header[$0..<($0 + mark.count)].elementsEqual(mark) })
    else { return header }
    return Array(header[..<at]) + Array(kid.utf8) + Array(header[(at + mark.count)...])
}

/// A key source holding fixed keys.
struct FixedKeys: RSAKeySource {
    let keys: [KeyID: RSAPublicKey]

    func key(id kid: KeyID) async throws -> RSAPublicKey? { keys[kid] }
}
