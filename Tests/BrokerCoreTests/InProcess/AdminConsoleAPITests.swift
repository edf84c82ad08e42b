import BrokerCore
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The console's pages and the admin API routes it reads beyond section 5: a user's sessions, sign-ins per
/// provider and outcome over time, and the audit log's filters.
@Suite struct AdminConsoleAPITests {
    static let token = AdminConsoleSessionTests.token
    static let bearer = AdminConsoleSessionTests.bearer

    @Test(arguments: [
        ("/admin/", "text/html; charset=utf-8"), ("/admin", "text/html; charset=utf-8"),
        ("/admin/app.js", "text/javascript; charset=utf-8"), ("/admin/console.css", "text/css; charset=utf-8"),
    ])
    func pagesComeWithAStrictCSPAndTheirContentType(path: String, type: String) async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.token)
        let response = await broker.get(path)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == type)
        let policy = try #require(response.headers["content-security-policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
        #expect(policy.contains("style-src 'self'") && policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
        #expect(response.headers["x-content-type-options"] == "nosniff")
        #expect(response.headers["x-frame-options"] == "DENY")
    }

    @Test func thePageHasNoInlineScriptOrStyle() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.token)
        let page = String(decoding: await broker.get("/admin/").body, as: UTF8.self)
        #expect(page.contains(#"<script type="module" src="/admin/app.js"></script>"#))
        #expect(!page.contains("<style") && !page.contains(" style=") && !page.contains(" onclick"))
        // Every script tag loads a file.
        #expect(page.components(separatedBy: "<script").count - 1 == page.components(separatedBy: "<script type=\"module\" src=").count - 1)
    }

    @Test(arguments: ["/admin/nothing.js", "/admin/..%2Fopenapi.json", "/admin/index.htm"])
    func unknownFilesAre404(path: String) async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.token)
        let response = await broker.get(path)
        #expect(response.status == 404)
        #expect(response.errorCode == "NOT_FOUND")
    }

    @Test func aUsersSessionsAreCountedWithTheirLastUse() async throws {
        let clock = ManualClock()
        let broker = try await InProcessBroker.start(clock: clock, adminToken: Self.token)
        let uid = try await AdminConsoleSessionTests.signUp(broker, "sam@example.com")
        clock.advance(by: 60)
        _ = await broker.post("/v1/signin/password", ["email": "sam@example.com", "password": "secret12"])
        let response = await broker.get("/admin/v1/users/\(uid)/sessions", headers: Self.bearer)
        #expect(response.status == 200)
        #expect(response.json?["live"]?.intValue == 2)
        #expect(response.json?["lastUsedAt"]?.stringValue == clock.now.rfc3339)
        #expect(await broker.request("POST", "/admin/v1/users/\(uid)/revoke-sessions", headers: Self.bearer).status == 204)
        #expect(await broker.get("/admin/v1/users/\(uid)/sessions", headers: Self.bearer).json?["live"]?.intValue == 0)
        let missing = await broker.get("/admin/v1/users/nobody/sessions", headers: Self.bearer)
        #expect(missing.status == 404)
        #expect(missing.errorCode == "NOT_FOUND")
        #expect(await broker.get("/admin/v1/users/\(uid)/sessions").status == 401)
    }

    @Test func signInsAreCountedPerBucketProviderAndOutcome() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let broker = try await InProcessBroker.start(clock: clock, adminToken: Self.token)
        _ = try await AdminConsoleSessionTests.signUp(broker, "ola@example.com")
        _ = await broker.post("/v1/signin/password", ["email": "ola@example.com", "password": "secret12"])
        _ = await broker.post("/v1/signin/password", ["email": "ola@example.com", "password": "wrong-one"])
        clock.advance(by: 3600)
        _ = await broker.post("/v1/signin/password", ["email": "ola@example.com", "password": "secret12"])

        let response = await broker.get("/admin/v1/stats/sign-ins?bucket=hour&buckets=3", headers: Self.bearer)
        #expect(response.status == 200)
        #expect(response.json?["bucket"]?.stringValue == "hour")
        let counts = try #require(response.json?["counts"]?.arrayValue)
        let rows = counts.map { entry in
            "\(entry["start"]?.stringValue ?? "") \(entry["provider"]?.stringValue ?? "") \(entry["outcome"]?.stringValue ?? "") \(entry["count"]?.intValue ?? 0)"
        }
        // 1_800_000_000 is 08:00:00 UTC on 2027-01-15.
        #expect(
            rows == [
                "2027-01-15T08:00:00Z password INVALID_LOGIN_CREDENTIALS 1", "2027-01-15T08:00:00Z password success 1",
                "2027-01-15T09:00:00Z password success 1",
            ])
        #expect(response.json?["start"]?.stringValue == "2027-01-15T07:00:00Z")
        #expect(response.json?["end"]?.stringValue == "2027-01-15T10:00:00Z")
        let one = await broker.get("/admin/v1/stats/sign-ins?bucket=hour&buckets=1", headers: Self.bearer)
        #expect(one.json?["counts"]?.arrayValue?.count == 1)
    }

    @Test(arguments: ["bucket=week", "bucket=", "buckets=", "buckets=0", "buckets=1441", "buckets=x", "other=1"])
    func badSeriesParametersAre400(query: String) async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.token)
        let response = await broker.get("/admin/v1/stats/sign-ins?\(query)", headers: Self.bearer)
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_REQUEST")
    }

    @Test func theAuditLogFiltersByActionProviderAndOutcome() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.token)
        let uid = try await AdminConsoleSessionTests.signUp(broker, "una@example.com")
        _ = await broker.post("/v1/signin/password", ["email": "una@example.com", "password": "wrong-one"])
        #expect(await broker.request("PATCH", "/admin/v1/users/\(uid)", json: ["disabled": true], headers: Self.bearer).status == 200)
        func actions(_ query: String) async throws -> [String] {
            let response = await broker.get("/admin/v1/audit?\(query)", headers: Self.bearer)
            #expect(response.status == 200)
            return try #require(response.json?["events"]?.arrayValue).compactMap { $0["action"]?.stringValue }
        }
        #expect(try await actions("action=disable") == ["disable"])
        #expect(try await actions("outcome=INVALID_LOGIN_CREDENTIALS") == ["sign_in"])
        let all = try #require(await broker.get("/admin/v1/audit", headers: Self.bearer).json?["events"]?.arrayValue)
        let passwordSignIns = all.filter { $0["provider"]?.stringValue == "password" && $0["action"]?.stringValue == "sign_in" }
        #expect(!passwordSignIns.isEmpty)
        #expect(try await actions("provider=password&action=sign_in").count == passwordSignIns.count, "\(all)")
        #expect(try await actions("uid=\(uid)&action=sign_in&outcome=created").count <= 1)
        #expect(try await actions("action=take_over") == [])
    }

    @Test func anActionAnotherBrokerWroteIsListedAndFilteredAsStored() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.token)
        await broker.store.appendAuditEvent(
            AuditEvent(
                time: .now, uid: AccountID("u-1"), action: AuditAction(rawValue: "future_action"), actor: .system,
                requestID: "r-future", origin: nil))
        let response = await broker.get("/admin/v1/audit?action=future_action", headers: Self.bearer)
        #expect(response.status == 200)
        let events = try #require(response.json?["events"]?.arrayValue)
        #expect(events.map { $0["action"]?.stringValue } == ["future_action"])
        #expect(events.first?["requestId"]?.stringValue == "r-future")
        #expect(try #require(await broker.get("/admin/v1/audit?action=sign_in", headers: Self.bearer).json?["events"]?.arrayValue).isEmpty)
    }
}
