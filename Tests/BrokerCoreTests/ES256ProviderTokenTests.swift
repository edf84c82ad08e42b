import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// P-256 JWKs in a JWKS document and ES256 ID tokens through ``IDTokenVerifier``, with the algorithm pinned.
@Suite struct ES256ProviderTokenTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let ec: StubECKeySet
    let rsa: RSAPrivateKey

    init() throws {
        ec = try StubECKeySet(prefix: "ec")
        rsa = try StubKeySet.sharedKey(index: 0)
    }

    struct Keys: VerificationKeySource {
        var set: JWKSet
        func verificationKey(id kid: KeyID) async throws -> ProviderKey? { set.verificationKeys[kid] }
    }

    func jwks(_ extra: [JSONValue] = []) -> JSONValue {
        let rsaEntry: JSONValue = [
            "kty": "RSA", "alg": "RS256", "kid": "rsa-1", "n": .string(Base64URL.encode(rsa.publicKey.modulus)),
            "e": .string(Base64URL.encode(rsa.publicKey.exponent)),
        ]
        return ["keys": .array(ec.entries + [rsaEntry] + extra)]
    }

    func verifier(_ algorithms: [JWSAlgorithm]) throws -> IDTokenVerifier {
        let rules = IDTokenRules(
            issuers: ["https://issuer.example"], audiences: ["client"], clockSkew: 60, nonce: .optional,
            algorithms: algorithms)
        return IDTokenVerifier(keys: Keys(set: try JWKSet(parsing: jwks().serialized())), rules: rules, clock: clock)
    }

    var claims: [String: JSONValue] {
        let now = Int64(clock.now.timeIntervalSince1970)
        return ["iss": "https://issuer.example", "aud": "client", "sub": "u-1", "iat": .int(now), "exp": .int(now + 600)]
    }

    func refusal(_ token: String, _ verifier: IDTokenVerifier) async -> TokenError.Code? {
        do {
            _ = try await verifier.verify(token, rawNonce: nil)
            return nil
        } catch let error as TokenError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func p256KeysAreReadAndOtherCurvesIgnored() throws {
        let point = ec.current.key.publicKey
        let extra: [JSONValue] = [
            ["kty": "EC", "crv": "P-384", "kid": "p384", "x": "hN49KXP0vclQ0gEEjSFbKtSMBJ15TRbCgMxCcqZsBxCk7fjUA3sHPS6hxbxbWPy-",
             "y": "Km3ry8Rsb-5NX7rjJbFmw4o_G-QANx_lPBfgz-A9k19yqY3JHrzUq92-4Ao8jdWw"],
            ["kty": "EC", "crv": "P-256", "kid": "for-rs", "alg": "RS256", "x": .string(Base64URL.encode(point.x)),
             "y": .string(Base64URL.encode(point.y))],
            ["kty": "EC", "crv": "P-256", "kid": "enc", "use": "enc", "x": .string(Base64URL.encode(point.x)),
             "y": .string(Base64URL.encode(point.y))],
            ["kty": "EC", "crv": "P-256", "kid": "off-curve", "x": .string(Base64URL.encode(point.x)),
             "y": .string(Base64URL.encode(point.x))],
            ["kty": "oct", "kid": "secret", "k": "c2VjcmV0"],
            ["kty": "EC", "crv": "P-256", "kid": "ec-1", "x": .string(Base64URL.encode(point.y)), "y": "AA"],
        ]
        let set = try JWKSet(parsing: jwks(extra).serialized())
        #expect(set.verificationKeys.keys.sorted() == ["ec-1", "rsa-1"])
        #expect(set.keys.keys.sorted() == ["rsa-1"])
        guard case .p256(let key)? = set.verificationKeys["ec-1"] else {
            Issue.record("ec-1 is not a P-256 key")
            return
        }
        // The first entry for a kid wins; the later duplicate is ignored.
        #expect(key.x == point.x)
        #expect(set.verificationKeys["ec-1"]?.algorithm == .es256)
    }

    @Test func anES256TokenVerifiesWhenES256IsPinned() async throws {
        let token = try TestTokens.signES256(claims: claims, key: ec.current.key, kid: ec.current.id)
        let verified = try await verifier([.es256]).verify(token, rawNonce: nil)
        #expect(verified["sub"] == "u-1")
    }

    @Test func theAlgorithmIsPinned() async throws {
        let es256 = try TestTokens.signES256(claims: claims, key: ec.current.key, kid: ec.current.id)
        let rs256 = try TestTokens.sign(claims: claims, key: rsa, kid: "rsa-1")
        #expect(await refusal(es256, try verifier([.rs256])) == .algorithmNotAllowed)
        #expect(await refusal(rs256, try verifier([.es256])) == .algorithmNotAllowed)
        // Both pinned: each verifies with its own key type only.
        let both = try verifier([.rs256, .es256])
        #expect(await refusal(es256, both) == nil)
        #expect(await refusal(rs256, both) == nil)
        let crossed = try TestTokens.signES256(claims: claims, key: ec.current.key, kid: "rsa-1")
        #expect(await refusal(crossed, both) == .unknownKey)
    }

    @Test func hmacAndNoneAreNeverAccepted() async throws {
        let point = ec.current.key.publicKey
        let hmac = TestTokens.signHS256(claims: claims, secret: [0x04] + point.x + point.y, kid: ec.current.id)
        let none = TestTokens.unsigned(claims: claims, kid: ec.current.id)
        for verifier in [try verifier([.es256]), try verifier([.rs256, .es256])] {
            #expect(await refusal(hmac, verifier) == .algorithmNotAllowed)
            #expect(await refusal(none, verifier) == .algorithmNotAllowed)
        }
    }

    @Test func aForgedOrReshapedSignatureFails() async throws {
        let stranger = try P256PrivateKey.generate()
        let forged = try TestTokens.signES256(claims: claims, key: stranger, kid: ec.current.id)
        #expect(await refusal(forged, try verifier([.es256])) == .badSignature)
        let good = try TestTokens.signES256(claims: claims, key: ec.current.key, kid: ec.current.id)
        let parts = good.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(parts[2]))
        for reshaped in [Array(signature.dropLast()), signature + [0], [UInt8](repeating: 0, count: 64)] {
            let token = parts[0] + "." + parts[1] + "." + Base64URL.encode(reshaped)
            #expect(await refusal(token, try verifier([.es256])) == .badSignature)
        }
    }
}
