import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The admin console's session (contract section 12): the admin token exchanged for a revocable cookie, the
/// CSRF token every change made with it needs, the lockout, sign-out, and `console.enabled`.
@Suite struct AdminConsoleSessionTests {
    static let token = "admin-token-for-console-tests-0123"
    static let bearer = ["Authorization": "Bearer \(token)"]

    static func start(clock: any Clock = SystemClock(), enabled: Bool = true) async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: clock, adminToken: token) { document in
            guard case .object(var members) = document, !enabled else { return document }
            members["console"] = ["enabled": false]
            return .object(members)
        }
    }

    /// Signs in to the console: the cookie header to send back and the CSRF token.
    static func signIn(_ broker: InProcessBroker) async throws -> (cookie: [String: String], csrf: String) {
        let response = await broker.post("/admin/v1/console/session", ["token": .string(token)])
        #expect(response.status == 200)
        let setCookie = try #require(response.headers["set-cookie"])
        let value = try #require(setCookie.split(separator: ";").first.map(String.init))
        let csrf = try #require(response.json?["csrfToken"]?.stringValue)
        return (["Cookie": value], csrf)
    }

    static func signUp(_ broker: InProcessBroker, _ email: String) async throws -> String {
        let response = await broker.post("/v1/signup", ["email": .string(email), "password": "secret12"])
        return try #require(response.json?["user"]?["uid"]?.stringValue)
    }

    static func actions(_ broker: InProcessBroker) async throws -> [String] {
        await broker.store.auditEvents(uid: nil, before: nil, limit: 100).map { "\($0.action):\($0.outcome)" }
    }

    @Test func theTokenBecomesAnHttpOnlySecureStrictCookieStoredOnlyAsItsHash() async throws {
        let broker = try await Self.start()
        let response = await broker.post("/admin/v1/console/session", ["token": .string(Self.token)])
        #expect(response.status == 200)
        #expect(response.headers["cache-control"] == "no-store")
        let setCookie = try #require(response.headers["set-cookie"])
        let attributes = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(attributes.contains("HttpOnly") && attributes.contains("Secure") && attributes.contains("SameSite=Strict"))
        #expect(attributes.contains("Path=/admin") && attributes.contains("Max-Age=28800"))
        let value = try #require(attributes.first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        #expect(value.count >= 40 && !setCookie.contains(Self.token))
        #expect(response.json?["csrfToken"]?.stringValue == ConsoleSessions.csrfToken(for: value))
        #expect(response.json?["expiresAt"]?.stringValue != nil)
        // The store holds the value's HMAC under the admin token's key, never the value (nor its plain digest).
        let key = try #require(await broker.services.adminGate.consoleSessionKey)
        let sessions = ConsoleSessions(store: broker.store, clock: broker.services.clock, key: key)
        #expect(await broker.store.consoleSession(hash: sessions.hash(value)) != nil)
        #expect(await broker.store.consoleSession(hash: value) == nil)
        #expect(await broker.store.consoleSession(hash: Hex.encode(Digest.sha256(value))) == nil)
        #expect(await broker.store.consoleSessionCount == 1)
        #expect(try await Self.actions(broker) == ["console_sign_in:success"])
    }

    @Test func aWrongTokenGets401SetsNoCookieStoresNoSessionAndIsAudited() async throws {
        let broker = try await Self.start()
        for body: JSONValue in [["token": "wrong"], ["token": ""]] {
            let response = await broker.post("/admin/v1/console/session", body)
            #expect(response.status == 401)
            #expect(response.errorCode == "UNAUTHENTICATED")
            #expect(response.headers["set-cookie"] == nil)
        }
        let malformed = await broker.post("/admin/v1/console/session", ["token": .string(Self.token), "extra": 1])
        #expect(malformed.status == 400)
        #expect(malformed.errorCode == "INVALID_REQUEST")
        #expect(malformed.headers["set-cookie"] == nil)
        #expect(await broker.store.consoleSessionCount == 0)
        #expect(try await Self.actions(broker) == ["console_sign_in:UNAUTHENTICATED", "console_sign_in:UNAUTHENTICATED"])
    }

    @Test func theAddressLockoutAppliesToFailedExchangesAndUnknownCookies() async throws {
        let broker = try await Self.start()
        for _ in 0..<(AdminGate.maximumFailures - 1) {
            #expect(await broker.post("/admin/v1/console/session", ["token": "guess"]).status == 401)
        }
        let stale = await broker.get("/admin/v1/users", headers: ["Cookie": "broker_console=\(String(repeating: "x", count: 43))"])
        #expect(stale.status == 401)
        // Twenty failures: the right token is refused too, until the window has passed.
        let locked = await broker.post("/admin/v1/console/session", ["token": .string(Self.token)])
        #expect(locked.status == 429)
        #expect(locked.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(locked.headers["retry-after"] != nil)
        #expect(locked.headers["set-cookie"] == nil)
        #expect(await broker.store.consoleSessionCount == 0)
    }

    @Test func theCookieAuthenticatesReadsButAChangeNeedsTheCSRFToken() async throws {
        let broker = try await Self.start()
        let uid = try await Self.signUp(broker, "ann@example.com")
        let (cookie, csrf) = try await Self.signIn(broker)
        #expect(await broker.get("/admin/v1/users/\(uid)", headers: cookie).status == 200)
        let resumed = await broker.get("/admin/v1/console/session", headers: cookie)
        #expect(resumed.status == 200)
        #expect(resumed.json?["csrfToken"]?.stringValue == csrf)

        // Another session's CSRF token does not fit this cookie.
        let (_, otherCSRF) = try await Self.signIn(broker)
        #expect(otherCSRF != csrf)
        for headers in [
            cookie, cookie.merging(["X-CSRF-Token": "forged"]) { $1 }, cookie.merging(["X-CSRF-Token": ""]) { $1 },
            cookie.merging(["X-CSRF-Token": otherCSRF]) { $1 },
        ] {
            let refused = await broker.request("PATCH", "/admin/v1/users/\(uid)", json: ["disabled": true], headers: headers)
            #expect(refused.status == 401)
            #expect(refused.errorCode == "UNAUTHENTICATED")
            let revoke = await broker.request("POST", "/admin/v1/users/\(uid)/revoke-sessions", headers: headers)
            #expect(revoke.status == 401)
            let delete = await broker.request("DELETE", "/admin/v1/users/\(uid)", headers: headers)
            #expect(delete.status == 401)
        }
        // Refused changes changed nothing.
        let after = try #require(await broker.store.account(id: AccountID(uid)))
        #expect(!after.disabled)
        #expect(try await Self.actions(broker).filter { !$0.hasPrefix("sign_") && !$0.hasPrefix("console_") } == [])

        let accepted = await broker.request(
            "PATCH", "/admin/v1/users/\(uid)", json: ["disabled": true], headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
        #expect(accepted.status == 200)
        #expect(await broker.store.account(id: AccountID(uid))?.disabled == true)
        let events = await broker.store.auditEvents(uid: AccountID(uid), before: nil, limit: 10)
        #expect(events.first?.action == .disable && events.first?.actor == .admin)
    }

    @Test func theBearerTokenKeepsWorkingWithoutACSRFToken() async throws {
        let broker = try await Self.start()
        let uid = try await Self.signUp(broker, "bea@example.com")
        let response = await broker.request("PATCH", "/admin/v1/users/\(uid)", json: ["disabled": true], headers: Self.bearer)
        #expect(response.status == 200)
        #expect(await broker.store.account(id: AccountID(uid))?.disabled == true)
        // A wrong bearer token is not rescued by a valid cookie.
        let (cookie, csrf) = try await Self.signIn(broker)
        let mixed = await broker.get(
            "/admin/v1/users", headers: cookie.merging(["Authorization": "Bearer nope", "X-CSRF-Token": csrf]) { $1 })
        #expect(mixed.status == 401)
    }

    @Test func signingOutEndsTheSessionAndIsAudited() async throws {
        let broker = try await Self.start()
        let (cookie, csrf) = try await Self.signIn(broker)
        let withoutCSRF = await broker.request("DELETE", "/admin/v1/console/session", headers: cookie)
        #expect(withoutCSRF.status == 401)
        #expect(await broker.get("/admin/v1/users", headers: cookie).status == 200)

        let out = await broker.request("DELETE", "/admin/v1/console/session", headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
        #expect(out.status == 204)
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(await broker.store.consoleSessionCount == 0)
        let after = await broker.get("/admin/v1/users", headers: cookie)
        #expect(after.status == 401)
        #expect(after.errorCode == "UNAUTHENTICATED")
        #expect(await broker.get("/admin/v1/console/session", headers: cookie).status == 401)
        #expect(try await Self.actions(broker) == ["console_sign_out:success", "console_sign_in:success"])
    }

    @Test func anotherAdminTokenEndsEverySession() async throws {
        let store = MemoryBrokerStore()
        let clock = SystemClock()
        let before = ConsoleSessions(
            store: store, clock: clock, key: try #require(await AdminGate(token: Self.token, clock: clock).consoleSessionKey))
        let grant = try await before.begin()
        let request = HTTPRequest(
            method: "GET", path: "/admin/v1/users", headers: ["Cookie": "\(ConsoleSessions.cookieName)=\(grant.cookieValue)"])
        #expect(try await before.session(of: request) != nil)
        let after = ConsoleSessions(
            store: store, clock: clock, key: try #require(await AdminGate(token: Self.token + "-new", clock: clock).consoleSessionKey))
        #expect(try await after.session(of: request) == nil)
        #expect(try await after.end(request) == false)
        #expect(await AdminGate(token: nil, clock: clock).consoleSessionKey == nil)
    }

    @Test func withoutAnAdminTokenNoConsoleSessionBeginsAndNothingIsCounted() async throws {
        let broker = try await InProcessBroker.start()
        for _ in 0..<(AdminGate.maximumFailures + 2) {
            let response = await broker.post("/admin/v1/console/session", ["token": .string(Self.token)])
            #expect(response.status == 401)
            #expect(response.errorCode == "UNAUTHENTICATED")
            #expect(response.headers["set-cookie"] == nil)
            let cookie = await broker.get("/admin/v1/users", headers: ["Cookie": "broker_console=\(String(repeating: "y", count: 43))"])
            #expect(cookie.status == 401)
        }
        #expect(await broker.store.consoleSessionCount == 0)
        #expect(await broker.services.adminGate.trackedAddressCount == 0)
    }

    @Test func aSessionEndsAtItsExpiry() async throws {
        let clock = ManualClock()
        let broker = try await Self.start(clock: clock)
        let (cookie, _) = try await Self.signIn(broker)
        clock.advance(by: ConsoleSessions.lifetime - 1)
        #expect(await broker.get("/admin/v1/users", headers: cookie).status == 200)
        clock.advance(by: 1)
        let expired = await broker.get("/admin/v1/users", headers: cookie)
        #expect(expired.status == 401)
        #expect(expired.errorCode == "UNAUTHENTICATED")
    }

    @Test func withTheConsoleDisabledItsPagesAndSessionsAre404AndCookiesAreIgnored() async throws {
        let broker = try await Self.start(enabled: false)
        #expect(broker.services.config.consoleEnabled == false)
        for path in ["/admin/", "/admin/app.js", "/admin/v1/console/session"] {
            let response = await broker.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(response.errorCode == "NOT_FOUND")
        }
        let signIn = await broker.post("/admin/v1/console/session", ["token": .string(Self.token)])
        #expect(signIn.status == 404)
        #expect(signIn.headers["set-cookie"] == nil)
        #expect(await broker.store.consoleSessionCount == 0)
        // The admin API itself is unchanged.
        #expect(await broker.get("/admin/v1/users", headers: Self.bearer).status == 200)
    }

    @Test func consoleEnabledMustBeABooleanAndTheSectionTakesNoOtherKey() throws {
        let base = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:1", issuer: "http://127.0.0.1:8080")
        func parse(_ console: JSONValue) throws -> BrokerConfig {
            guard case .object(var members) = base else { throw ConfigError(field: "", "not an object") }
            members["console"] = console
            return try BrokerConfig(parsing: JSONValue.object(members).serialized(), environment: [:], sections: FirebaseModule.configSections)
        }
        #expect(try BrokerConfig(parsing: base.serialized(), environment: [:], sections: FirebaseModule.configSections).consoleEnabled)
        #expect(try parse(["enabled": true]).consoleEnabled)
        #expect(try parse(["enabled": false]).consoleEnabled == false)
        #expect(throws: ConfigError.self) { try parse(["enabled": "no"]) }
        #expect(throws: ConfigError.self) { try parse(["enabled": true, "path": "/x"]) }
    }
}
