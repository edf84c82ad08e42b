import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Guests (contract section 13) against a live broker on SQLite: made over HTTP, upgraded in place with a provider,
/// each answer as the OpenAPI document says, and the state in the database after.
@Suite struct GuestContractTests {
    @Test func aGuestIsMadeAndUpgradedInPlaceOverHTTP() async throws {
        try await withBroker(
            serviceAccount: true,
            configure: { document in
                guard case .object(var members) = document else { return document }
                members["anonymous"] = ["enabled": true]
                return .object(members)
            }
        ) { broker in
            let guest = try await broker.post("/v1/signin/anonymous", [:])
            #expect(guest.status == 201)
            #expect(guest.json?["user"]?["isAnonymous"] == true)
            #expect(guest.json?["customToken"]?.stringValue != nil)
            let uid = try #require(guest.json?["user"]?["uid"]?.stringValue)
            let idToken = try #require(guest.json?["idToken"]?.stringValue)
            let upgraded = try await broker.post(
                "/v1/me/identities/google",
                ["idToken": .string(try broker.stubs.idToken("google", claims: ["sub": "g-guest"]))],
                headers: ["Authorization": "Bearer " + idToken])
            #expect(upgraded.status == 200)
            #expect(upgraded.json?["user"]?["uid"]?.stringValue == uid)
            #expect(upgraded.json?["user"]?["isAnonymous"] == false)
            let again = try await broker.post(
                "/v1/me/identities/google",
                ["idToken": .string(try broker.stubs.idToken("google", claims: ["sub": "g-other"]))],
                headers: ["Authorization": "Bearer " + idToken])
            #expect(again.status == 409)
            #expect(again.errorCode == "IDENTITY_ALREADY_LINKED")
            for (path, answer) in [("/v1/signin/anonymous", guest), ("/v1/me/identities/{provider}", upgraded)] {
                let body = try #require(answer.json)
                let schema = try OpenAPIConformanceTests.schema("POST", path, answer.status)
                #expect(try OpenAPIConformanceTests.violations(body, schema) == [], "\(path)")
            }
            let stored = try #require(try await broker.store.account(id: AccountID(uid)))
            #expect(!stored.isAnonymous && stored.identities.map(\.subject) == ["g-guest"])
            #expect(try await broker.get("/v1/me", headers: ["Authorization": "Bearer " + idToken]).status == 200)
        }
    }
}
