import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct JWKSCacheTests {
    let clock = ManualClock()
    let keys: StubKeySet

    init() throws { keys = try StubKeySet(prefix: "p") }

    func cache(_ client: ScriptedHTTPClient) -> JWKSCache {
        JWKSCache(
            url: "https://keys.example/jwks", provider: "p", client: client, clock: clock, metrics: Metrics(),
            logger: .disabled)
    }

    func serving(maxAge: Int? = nil) -> ScriptedHTTPClient {
        let keys = self.keys
        return ScriptedHTTPClient { _ in
            ScriptedHTTPClient.json(200, keys.jwks, headers: maxAge.map { ["Cache-Control": "public, max-age=\($0)"] } ?? [:])
        }
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let client = ScriptedHTTPClient { [keys] _ in
            try await Task.sleep(for: .milliseconds(50))
            return ScriptedHTTPClient.json(200, keys.jwks)
        }
        let cache = cache(client)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { try await cache.key(id: "p-1") != nil } }
            for try await found in group { #expect(found) }
        }
        #expect(client.requests.count == 1)
        #expect(client.requests.first?.url == "https://keys.example/jwks")
        #expect(client.requests.first?.timeout == 5)
    }

    @Test func honoursMaxAgeAndDefaultsToAnHour() async throws {
        let client = serving(maxAge: 100)
        let cache = cache(client)
        _ = try await cache.key(id: "p-1")
        clock.advance(by: 99)
        _ = try await cache.key(id: "p-1")
        #expect(client.requests.count == 1)
        clock.advance(by: 2)
        _ = try await cache.key(id: "p-1")
        #expect(client.requests.count == 2)

        let plain = serving()
        let hourly = self.cache(plain)
        _ = try await hourly.key(id: "p-1")
        clock.advance(by: 3599)
        _ = try await hourly.key(id: "p-1")
        #expect(plain.requests.count == 1)
        clock.advance(by: 2)
        _ = try await hourly.key(id: "p-1")
        #expect(plain.requests.count == 2)
    }

    @Test func refetchesForAnUnknownKidAtMostEveryThirtySeconds() async throws {
        let client = serving()
        let cache = cache(client)
        #expect(try await cache.key(id: "p-1") != nil)
        let newKid = try keys.rotate()
        clock.advance(by: 31)
        #expect(try await cache.key(id: KeyID(newKid)) != nil)
        #expect(client.requests.count == 2)
        #expect(try await cache.key(id: "nope") == nil)
        #expect(try await cache.key(id: "nope-again") == nil)
        #expect(client.requests.count == 2)
        clock.advance(by: 31)
        #expect(try await cache.key(id: "nope") == nil)
        #expect(client.requests.count == 3)
    }

    @Test func keepsVerifyingWithCachedKeysWhileTheProviderIsDown() async throws {
        let client = serving(maxAge: 60)
        let cache = cache(client)
        #expect(try await cache.key(id: "p-1") != nil)
        client.respond { _ in throw HTTPClientError(.connectionFailed) }
        clock.advance(by: 61)
        #expect(try await cache.key(id: "p-1") != nil)
        #expect(try await cache.key(id: "p-1") != nil)
        #expect(client.requests.count == 2)  // no refetch storm after a failure
        client.respond { _ in ScriptedHTTPClient.json(503, [:]) }
        clock.advance(by: 31)
        #expect(try await cache.key(id: "p-1") != nil)
        #expect(client.requests.count == 3)
    }

    @Test func withoutAnyKeysAnOutageIsUnavailable() async throws {
        let client = ScriptedHTTPClient { _ in throw HTTPClientError(.timeout) }
        let error = await #expect(throws: ProviderError.self) { try await cache(client).key(id: "p-1") }
        #expect(error?.code == .unavailable)
    }

    @Test func ignoresWeakForeignAndNonRSAKeys() throws {
        let weak = try StubKeySet.weakKey()
        let good = try StubKeySet.sharedKey(index: 0)
        func rsa(_ kid: String, _ key: RSAPrivateKey, extra: [String: JSONValue] = [:]) -> JSONValue {
            var members: [String: JSONValue] = [
                "kty": "RSA", "kid": .string(kid), "n": .string(Base64URL.encode(key.publicKey.modulus)),
                "e": .string(Base64URL.encode(key.publicKey.exponent)),
            ]
            members.merge(extra) { _, new in new }
            return .object(members)
        }
        let document: JSONValue = [
            "keys": [
                rsa("weak", weak), rsa("good", good), rsa("enc", good, extra: ["use": "enc"]),
                rsa("hs", good, extra: ["alg": "HS256"]), ["kty": "EC", "kid": "ec", "crv": "P-256"],
                ["kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"],
            ]
        ]
        let set = try JWKSet(parsing: document.serialized())
        #expect(Set(set.keys.keys) == ["good"])
        #expect(throws: TokenError.self) { try JWKSet(parsing: Array("{\"nokeys\":1}".utf8)) }
    }
}
