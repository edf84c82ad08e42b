import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct AppleSignInTests {
    static func token(_ stubs: StubProviders, sub: String = "001.apple", rawNonce: String?, extra: [String: JSONValue] = [:])
        throws -> String
    {
        var claims: [String: JSONValue] = ["sub": .string(sub)]
        if let rawNonce { claims["nonce"] = .string(TestTokens.hashedNonce(rawNonce)) }
        claims.merge(extra) { _, new in new }
        return try stubs.idToken("apple", claims: claims)
    }

    @Test func aNonceIsRequiredByDefault() async throws {
        try await withBroker { broker in
            let token = try Self.token(broker.stubs, rawNonce: "n1")
            let response = try await broker.post("/v1/signin/apple", ["identityToken": .string(token)])
            #expect(response.status == 400)
            #expect(response.errorCode == "MISSING_NONCE")
            #expect(try await broker.count("accounts") == 0)
            #expect(try await broker.count("used_marks") == 0)
            // The same token with its nonce is still good: the refusal consumed nothing.
            let accepted = try await broker.post(
                "/v1/signin/apple", ["identityToken": .string(token), "rawNonce": "n1"])
            #expect(accepted.status == 201)
        }
    }

    @Test func theFullNameIsTakenOnTheFirstAuthorizationOnly() async throws {
        try await withBroker { broker in
            let first = try await broker.post(
                "/v1/signin/apple",
                [
                    "identityToken": .string(
                        try Self.token(broker.stubs, rawNonce: "n1", extra: ["email": "r@privaterelay.appleid.com", "email_verified": "true"])),
                    "rawNonce": "n1", "fullName": ["givenName": "Minjun", "familyName": "Lee"],
                ])
            #expect(first.status == 201)
            #expect(first.json?["user"]?["displayName"] == "Minjun Lee")
            #expect(first.json?["user"]?["emailVerified"] == true)
            let later = try await broker.post(
                "/v1/signin/apple",
                [
                    "identityToken": .string(try Self.token(broker.stubs, rawNonce: "n2")), "rawNonce": "n2",
                    "fullName": ["givenName": "Mallory", "familyName": "X"],
                ])
            #expect(later.status == 200)
            #expect(later.json?["user"]?["displayName"] == "Minjun Lee")
        }
    }

    @Test(arguments: [JSONValue.bool(true), "true"])
    func emailVerifiedMayBeAStringOrABoolean(_ flag: JSONValue) async throws {
        try await withBroker { broker in
            let response = try await broker.post(
                "/v1/signin/apple",
                [
                    "identityToken": .string(
                        try Self.token(broker.stubs, rawNonce: "n", extra: ["email": "a@b.com", "email_verified": flag])),
                    "rawNonce": "n",
                ])
            #expect(response.json?["user"]?["emailVerified"] == true)
        }
    }

    @Test func aTokenIsAcceptedOnceAndItsReplayStoresNothing() async throws {
        try await withBroker { broker in
            let body: JSONValue = ["identityToken": .string(try Self.token(broker.stubs, rawNonce: "n1")), "rawNonce": "n1"]
            let first = try await broker.post("/v1/signin/apple", body)
            #expect(first.status == 201)
            let uid = AccountID(try #require(first.json?["user"]?["uid"]?.stringValue))
            let before = try await broker.store.account(id: uid)
            let replay = try await broker.post("/v1/signin/apple", body)
            #expect(replay.status == 401)
            #expect(replay.errorCode == "TOKEN_REPLAYED")
            #expect(try await broker.store.account(id: uid) == before)
            #expect(try await broker.count("refresh_tokens") == 1)
            #expect(try await broker.count("used_marks") == 1)
            // The same token spelled with base64 padding is not a fresh token.
            let token = try #require(body["identityToken"]?.stringValue)
            let padded = try await broker.post("/v1/signin/apple", ["identityToken": .string(token + "=="), "rawNonce": "n1"])
            #expect(padded.status == 401)
            #expect(try await broker.count("refresh_tokens") == 1)
        }
    }

    @Test func concurrentReplaysOfOneTokenSucceedOnce() async throws {
        try await withBroker { broker in
            let body: JSONValue = ["identityToken": .string(try Self.token(broker.stubs, rawNonce: "n1")), "rawNonce": "n1"]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await broker.post("/v1/signin/apple", body).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.filter { $0 == 401 }.count == 9)
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func bothAppleIssuersAreAcceptedAndAWrongNonceIsRefused() async throws {
        try await withBroker { broker in
            let other = try Self.token(broker.stubs, sub: "002.apple", rawNonce: "n", extra: ["iss": "https://account.apple.com"])
            #expect(try await broker.post("/v1/signin/apple", ["identityToken": .string(other), "rawNonce": "n"]).status == 201)
            let mismatched = try Self.token(broker.stubs, sub: "003.apple", rawNonce: "n")
            let refused = try await broker.post("/v1/signin/apple", ["identityToken": .string(mismatched), "rawNonce": "m"])
            #expect(refused.status == 401)
            #expect(refused.errorCode == "NONCE_MISMATCH")
            #expect(try await broker.isLinked("apple", "003.apple") == false)
            #expect(try await broker.count("used_marks") == 1)
        }
    }
}
