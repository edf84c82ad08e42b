import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Provider tokens signed with the provider's own key but carrying hostile numbers (issue 10, items 5 and 8),
/// over HTTP against the SQLite-backed broker: each is 401 `INVALID_TOKEN`, stores nothing, and the process
/// keeps serving.
@Suite struct HostileTokenTests {
    static func appleToken(_ stubs: StubProviders, nonce: String, _ claims: [String: JSONValue]) throws -> String {
        var all = claims
        all["nonce"] = .string(TestTokens.hashedNonce(nonce))
        return try stubs.idToken("apple", claims: all)
    }

    @Test func anAppleTokenExpiringIn1e17IsRefusedAndTheBrokerLives() async throws {
        try await withBroker { broker in
            for exp in [JSONValue.double(1e17), .int(100_000_000_000_000_000), .double(1e300)] {
                let token = try Self.appleToken(broker.stubs, nonce: "n", ["sub": "001.hostile", "exp": exp])
                let response = try await broker.post("/v1/signin/apple", ["identityToken": .string(token), "rawNonce": "n"])
                #expect(response.status == 401)
                #expect(response.errorCode == "INVALID_TOKEN")
            }
            #expect(try await broker.count("accounts") == 0)
            #expect(try await broker.count("used_marks") == 0)
            #expect(try await broker.count("refresh_tokens") == 0)
            // Still serving: an honest token signs in.
            let honest = try Self.appleToken(broker.stubs, nonce: "n", ["sub": "001.honest"])
            let accepted = try await broker.post("/v1/signin/apple", ["identityToken": .string(honest), "rawNonce": "n"])
            #expect(accepted.status == 201)
            #expect(try await broker.count("used_marks") == 1)
        }
    }

    @Test func googleTokensWithOutOfBoundsTimesAreInvalid() async throws {
        try await withBroker { broker in
            let now = Int64(Date().timeIntervalSince1970)
            for claim in ["exp", "iat", "nbf", "auth_time"] {
                for literal in ["1e400", "-1", "0", "1e17", "1e300", "\"1800000000\"", "null"] {
                    var members: [String: String] = [
                        "iss": "\"https://accounts.google.com\"", "aud": "\"\(StubProviders.googleAudience)\"",
                        "sub": "\"g-hostile\"", "iat": String(now), "exp": String(now + 3600),
                    ]
                    members[claim] = literal
                    let payload = "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }
                        .joined(separator: ",") + "}"
                    let token = try broker.stubs.idToken("google", rawClaims: payload)
                    let response = try await broker.post("/v1/signin/google", ["idToken": .string(token)])
                    #expect(response.status == 401, "\(claim) = \(literal)")
                    #expect(response.errorCode == "INVALID_TOKEN", "\(claim) = \(literal)")
                }
            }
            #expect(try await broker.count("accounts") == 0)
            #expect(try await broker.count("refresh_tokens") == 0)
        }
    }

    @Test func aGoogleTokenValidOnlyFromAnHourAheadIsInvalid() async throws {
        try await withBroker { broker in
            let now = Int64(Date().timeIntervalSince1970)
            let early = try await broker.googleSignIn(["sub": "g-early", "nbf": .int(now + 3600)])
            #expect(early.status == 401)
            #expect(early.errorCode == "INVALID_TOKEN")
            #expect(try await broker.count("accounts") == 0)
            let due = try await broker.googleSignIn(["sub": "g-early", "nbf": .int(now - 5)])
            #expect(due.status == 201)
        }
    }
}
