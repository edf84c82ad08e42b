import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

struct StaticKeys: RSAKeySource {
    var keys: [KeyID: RSAPublicKey]
    func key(id kid: KeyID) async throws -> RSAPublicKey? { keys[kid] }
}

@Suite struct IDTokenVerifierTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let key: RSAPrivateKey
    let verifier: IDTokenVerifier
    let requiredNonce: IDTokenVerifier

    init() throws {
        key = try StubKeySet.sharedKey(index: 0)
        let keys = StaticKeys(keys: ["k1": key.publicKey])
        let rules = IDTokenRules(
            issuers: ["https://issuer.example", "issuer.example"], audiences: ["client-a", "client-b"], clockSkew: 60,
            nonce: .optional)
        verifier = IDTokenVerifier(keys: keys, rules: rules, clock: clock)
        var required = rules
        required.nonce = .required
        requiredNonce = IDTokenVerifier(keys: keys, rules: required, clock: clock)
    }

    var now: Int64 { Int64(clock.now.timeIntervalSince1970) }

    func claims(_ overrides: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": "https://issuer.example", "aud": "client-a", "sub": "user-1", "iat": .int(now - 10),
            "exp": .int(now + 3600),
        ]
        for (name, value) in overrides {
            if value == .null { claims.removeValue(forKey: name) } else { claims[name] = value }
        }
        return claims
    }

    func token(_ overrides: [String: JSONValue] = [:], kid: String? = "k1", header: [String: JSONValue] = [:],
               alg: String = "RS256", key: RSAPrivateKey? = nil) throws -> String {
        try TestTokens.sign(claims: claims(overrides), key: key ?? self.key, kid: kid, extraHeader: header, alg: alg)
    }

    func refusal(_ token: String, rawNonce: String? = nil, verifier: IDTokenVerifier? = nil) async -> TokenError.Code? {
        do {
            _ = try await (verifier ?? self.verifier).verify(token, rawNonce: rawNonce)
            return nil
        } catch let error as TokenError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func acceptsAValidToken() async throws {
        let claims = try await verifier.verify(try token(), rawNonce: nil)
        #expect(claims["sub"] == "user-1")
    }

    @Test func acceptsEitherIssuerFormAndAnAudienceList() async throws {
        _ = try await verifier.verify(try token(["iss": "issuer.example"]), rawNonce: nil)
        _ = try await verifier.verify(try token(["aud": ["someone-else", "client-b"]]), rawNonce: nil)
    }

    @Test(arguments: ["HS256", "none", "RS512", "ES256", "PS256"])
    func pinsTheAlgorithm(_ alg: String) async throws {
        #expect(await refusal(try token(alg: alg)) == .algorithmNotAllowed)
    }

    @Test(arguments: ["jku", "x5u", "x5c", "jwk", "crit"])
    func refusesKeyMaterialNamedByTheToken(_ field: String) async throws {
        #expect(await refusal(try token(header: [field: "https://attacker.example/keys"])) == .forbiddenHeader)
    }

    @Test func refusesUnknownOrMissingKeyIDs() async throws {
        #expect(await refusal(try token(kid: "k2")) == .unknownKey)
        #expect(await refusal(try token(kid: nil)) == .unknownKey)
    }

    @Test func refusesAForeignSignature() async throws {
        #expect(await refusal(try token(key: try StubKeySet.strangerKey())) == .badSignature)
        let good = try token()
        let tampered = good.split(separator: ".").enumerated().map { index, part in
            index == 1 ? Base64URL.encode(JSONValue.object(claims(["sub": "admin"])).serialized()) : String(part)
        }.joined(separator: ".")
        #expect(await refusal(tampered) == .badSignature)
    }

    @Test func checksIssuerAudienceAndSubject() async throws {
        #expect(await refusal(try token(["iss": "https://evil.example"])) == .invalidIssuer)
        #expect(await refusal(try token(["iss": .null])) == .invalidIssuer)
        #expect(await refusal(try token(["aud": "client-c"])) == .invalidAudience)
        #expect(await refusal(try token(["aud": ["client-c", "client-d"]])) == .invalidAudience)
        #expect(await refusal(try token(["sub": .null])) == .missingSubject)
        #expect(await refusal(try token(["sub": ""])) == .missingSubject)
    }

    @Test func checksTimesWithinTheSkew() async throws {
        #expect(await refusal(try token(["exp": .int(now - 61)])) == .expired)
        #expect(await refusal(try token(["exp": .int(now - 30)])) == nil)
        #expect(await refusal(try token(["iat": .int(now + 61)])) == .issuedInFuture)
        #expect(await refusal(try token(["iat": .int(now + 30)])) == nil)
        #expect(await refusal(try token(["exp": .null])) == .malformed)
        #expect(await refusal(try token(["exp": "tomorrow"])) == .malformed)
    }

    @Test func checksTheNonce() async throws {
        let raw = "raw-nonce-123"
        let hashed = TestTokens.hashedNonce(raw)
        #expect(await refusal(try token(["nonce": .string(hashed)]), rawNonce: raw) == nil)
        #expect(await refusal(try token(["nonce": .string(hashed)]), rawNonce: "other") == .nonceMismatch)
        #expect(await refusal(try token(["nonce": .string(raw)]), rawNonce: raw) == .nonceMismatch)
        #expect(await refusal(try token(["nonce": .string(hashed.uppercased())]), rawNonce: raw) == .nonceMismatch)
        #expect(await refusal(try token(), rawNonce: raw) == .nonceMismatch)
        #expect(await refusal(try token(["nonce": .string(hashed)]), verifier: requiredNonce) == .missingNonce)
        #expect(await refusal(try token(["nonce": .string(hashed)]), rawNonce: raw, verifier: requiredNonce) == nil)
    }

    @Test func paddingIsRefusedSoATokenHasOneSpelling() async throws {
        let good = try token()
        #expect(await refusal(good) == nil)
        #expect(await refusal(good + "==") == .malformed)
        #expect(await refusal(good + "=") == .malformed)
    }

    @Test func anEmptyRawNonceCountsAsMissing() async throws {
        #expect(await refusal(try token(["nonce": .string(TestTokens.hashedNonce(""))]), rawNonce: "", verifier: requiredNonce) == .missingNonce)
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "e30.e30.", "!!.e30.c2ln"])
    func refusesMalformedTokens(_ text: String) async {
        #expect(await refusal(text) == .malformed)
    }
}
