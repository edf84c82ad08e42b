import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct SessionTests {
    static func signIn(_ broker: BrokerHarness) async throws -> (uid: String, refresh: String) {
        let response = try await broker.googleSignIn(["sub": "g-s", "email": "s@example.com", "email_verified": true])
        return (
            try #require(response.json?["user"]?["uid"]?.stringValue),
            try #require(response.json?["refreshToken"]?.stringValue)
        )
    }

    @Test func aRefreshRotatesTheTokenAndAReuseRevokesTheSession() async throws {
        let clock = ManualClock(Date())
        try await withBroker(clock: clock) { broker in
            let (uid, first) = try await Self.signIn(broker)
            let refreshed = try await broker.post("/v1/token", ["refreshToken": .string(first)])
            #expect(refreshed.status == 200)
            #expect(refreshed.json?["user"]?["uid"]?.stringValue == uid)
            #expect(refreshed.json?["isNewUser"] == false)
            let second = try #require(refreshed.json?["refreshToken"]?.stringValue)
            #expect(second != first)
            let idToken = try #require(refreshed.json?["idToken"]?.stringValue)
            #expect(JWKSVerification.claims(of: idToken, jwks: try await broker.jwks())?["sub"]?.stringValue == uid)

            clock.advance(by: 11)
            let reuse = try await broker.post("/v1/token", ["refreshToken": .string(first)])
            #expect(reuse.status == 401)
            #expect(reuse.errorCode == "INVALID_REFRESH_TOKEN")
            // The whole session is gone: the current token no longer works either.
            let after = try await broker.post("/v1/token", ["refreshToken": .string(second)])
            #expect(after.status == 401)
            #expect(after.errorCode == "INVALID_REFRESH_TOKEN")
        }
    }

    @Test func concurrentRefreshesWithinTheGraceKeepTheUserSignedIn() async throws {
        let clock = ManualClock(Date())
        try await withBroker(clock: clock) { broker in
            let (_, first) = try await Self.signIn(broker)
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<2 { group.addTask { try await broker.post("/v1/token", ["refreshToken": .string(first)]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.map(\.status) == [200, 200])
            clock.advance(by: 9)
            let retry = try await broker.post("/v1/token", ["refreshToken": .string(first)])
            #expect(retry.status == 200)
            for response in responses + [retry] {
                let token = try #require(response.json?["refreshToken"]?.stringValue)
                #expect(try await broker.post("/v1/token", ["refreshToken": .string(token)]).status == 200)
            }
        }
    }

    @Test func signOutRevokesTheSession() async throws {
        try await withBroker { broker in
            let (_, token) = try await Self.signIn(broker)
            let out = try await broker.post("/v1/signout", ["refreshToken": .string(token)])
            #expect(out.status == 204)
            let refresh = try await broker.post("/v1/token", ["refreshToken": .string(token)])
            #expect(refresh.status == 401)
            #expect(refresh.errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await broker.post("/v1/signout", ["refreshToken": "unknown"]).status == 204)
            let signOuts = try await broker.store.auditEvents(uid: nil, before: nil, limit: 10).filter { $0.action == .signOut }
            #expect(signOuts.count == 1)
        }
    }

    @Test func refusedRefreshesStoreNothing() async throws {
        try await withBroker { broker in
            let (uid, token) = try await Self.signIn(broker)
            let unknown = try await broker.post("/v1/token", ["refreshToken": "not-a-token"])
            #expect(unknown.status == 401)
            #expect(unknown.errorCode == "INVALID_REFRESH_TOKEN")
            let missing = try await broker.post("/v1/token", [:])
            #expect(missing.status == 400)
            #expect(missing.errorCode == "INVALID_REQUEST")
            _ = try await broker.store.update(id: AccountID(uid)) { $0.disabled = true }
            let disabled = try await broker.post("/v1/token", ["refreshToken": .string(token)])
            #expect(disabled.status == 403)
            #expect(disabled.errorCode == "USER_DISABLED")
            #expect(try await broker.count("refresh_tokens") == 1)
        }
    }

    /// A refresh reads its token and its account in one look-up (issue 35): the body carries the account as it is
    /// at the refresh, and a token whose account is gone is refused without a rotation.
    @Test func aRefreshAnswersTheAccountAsItIsAndRefusesATokenWhoseAccountIsGone() async throws {
        try await withBroker { broker in
            let (uid, first) = try await Self.signIn(broker)
            _ = try await broker.store.update(id: AccountID(uid)) { $0.displayName = "Renamed" }
            let refreshed = try await broker.post("/v1/token", ["refreshToken": .string(first)])
            #expect(refreshed.status == 200)
            #expect(refreshed.json?["user"]?["uid"]?.stringValue == uid)
            #expect(refreshed.json?["user"]?["displayName"]?.stringValue == "Renamed")
            let second = try #require(refreshed.json?["refreshToken"]?.stringValue)

            _ = try await broker.store.database.write { connection in
                try connection.execute("UPDATE refresh_tokens SET uid = 'gone'", [])
            }
            let orphan = try await broker.post("/v1/token", ["refreshToken": .string(second)])
            #expect(orphan.status == 401)
            #expect(orphan.errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await broker.count("refresh_tokens") == 2)
            let unrotated = try await broker.store.database.read { connection in
                try connection.query("SELECT COUNT(*) AS n FROM refresh_tokens WHERE rotated_at IS NULL", [])
                    .first?.integer("n")
            }
            #expect(unrotated == 1, "the orphan's token is still the session's current one, not rotated")
        }
    }
}
