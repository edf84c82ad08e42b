import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Firebase listener against web pages of other sites (contract section 11, issue 25 finding 4): a foreign
/// `Origin` is 403 and a body that is not `application/json` is 400, before anything is counted or stored; the
/// origins it serves (loopback ones and `firebaseCompat.allowedOrigins`) get CORS preflights and
/// `Access-Control-Allow-Origin`.
@Suite struct FirebaseOriginTests {
    static let v1 = FirebaseEndpoints.identityToolkitPath
    static let signUpPath = v1 + "/accounts:signUp?key=k"
    static let signInPath = v1 + "/accounts:signInWithPassword?key=k"

    static func start(allowedOrigins: [String] = []) async throws -> InProcessBroker {
        try await InProcessBroker.start { document in
            guard case .object(var members) = document else { return document }
            members["firebaseCompat"] = ["allowedOrigins": .array(allowedOrigins.map(JSONValue.string))]
            return .object(members)
        }
    }

    /// A POST of `json`'s text with exactly `headers` (no `Content-Type` unless they name one).
    static func post(
        _ broker: InProcessBroker, _ path: String, _ json: JSONValue, headers: [String: String]
    ) async -> TestResponse {
        await broker.firebase("POST", path, body: json.serialized(), headers: headers)
    }

    static func code(_ response: TestResponse) -> String? {
        response.json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    static let credentials: JSONValue = ["email": "owner@example.com", "password": "secret-pass", "returnSecureToken": true]
    static let wrongPassword: JSONValue = ["email": "owner@example.com", "password": "wrong-pass"]

    static func failures(_ broker: InProcessBroker) async throws -> Int {
        await broker.store.loginFailures(emailKey: "owner@example.com", since: Date(timeIntervalSince1970: 0)).count
    }

    // MARK: Refused before anything is done

    @Test(arguments: ["text/plain", "application/json", "application/x-www-form-urlencoded"])
    func aForeignOriginIsRefusedAndNothingIsStored(_ type: String) async throws {
        let broker = try await Self.start()
        let response = await Self.post(
            broker, Self.signUpPath, Self.credentials, headers: ["Origin": "http://evil.example", "Content-Type": type])
        #expect(response.status == 403)
        #expect(Self.code(response) == "PERMISSION_DENIED")
        #expect(response.headers["access-control-allow-origin"] == nil)
        #expect(await broker.store.account(email: "owner@example.com") == nil)
    }

    @Test func aForeignOriginsWrongPasswordIsNotCounted() async throws {
        let broker = try await Self.start()
        #expect(await broker.firebasePost(Self.signUpPath, Self.credentials).status == 200)
        for origin in ["http://evil.example", "null", "http://localhost.evil.example", "https://localhost:3000"] {
            let response = await Self.post(
                broker, Self.signInPath, Self.wrongPassword,
                headers: ["Origin": origin, "Content-Type": "text/plain;charset=UTF-8"])
            #expect(response.status == 403)
            #expect(Self.code(response) == "PERMISSION_DENIED")
        }
        #expect(try await Self.failures(broker) == 0)
        // The same wrong password as JSON from no page at all is counted (so the count above could have moved).
        let counted = await broker.firebasePost(Self.signInPath, Self.wrongPassword)
        #expect(Self.code(counted) == "INVALID_LOGIN_CREDENTIALS")
        #expect(try await Self.failures(broker) == 1)
    }

    @Test(arguments: [
        ["Content-Type": "text/plain"], ["Content-Type": "text/plain;charset=UTF-8"],
        ["Content-Type": "multipart/form-data; boundary=x"], ["Content-Type": "application/x-www-form-urlencoded"],
        ["Content-Type": "application/jsonx"], ["Content-Type": ""], [:],
    ])
    func aBodyThatIsNotJSONIsRefusedAndNothingIsStored(_ headers: [String: String]) async throws {
        let broker = try await Self.start()
        let response = await Self.post(broker, Self.signUpPath, Self.credentials, headers: headers)
        #expect(response.status == 400)
        #expect(Self.code(response) == "INVALID_ARGUMENT")
        #expect(await broker.store.account(email: "owner@example.com") == nil)
    }

    @Test func aWrongPasswordThatIsNotJSONIsNotCounted() async throws {
        let broker = try await Self.start()
        #expect(await broker.firebasePost(Self.signUpPath, Self.credentials).status == 200)
        for _ in 0..<3 {
            let response = await Self.post(broker, Self.signInPath, Self.wrongPassword, headers: ["Content-Type": "text/plain"])
            #expect(response.status == 400)
            #expect(Self.code(response) == "INVALID_ARGUMENT")
        }
        #expect(try await Self.failures(broker) == 0)
        let counted = await broker.firebasePost(Self.signInPath, Self.wrongPassword)
        #expect(Self.code(counted) == "INVALID_LOGIN_CREDENTIALS")
        #expect(try await Self.failures(broker) == 1)
    }

    @Test(arguments: ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"])
    func jsonWithParametersIsTaken(_ type: String) async throws {
        let broker = try await Self.start()
        let response = await Self.post(broker, Self.signUpPath, Self.credentials, headers: ["Content-Type": type])
        #expect(response.status == 200)
        #expect(await broker.store.account(email: "owner@example.com") != nil)
    }

    @Test func securetokenTakesFormBodiesAndBodilessRequestsNeedNoType() async throws {
        let broker = try await Self.start()
        let signUp = await broker.firebasePost(Self.signUpPath, Self.credentials)
        let refreshToken = try #require(signUp.json?["refreshToken"]?.stringValue)
        let refreshed = await broker.firebase(
            "POST", FirebaseEndpoints.secureTokenPath + "?key=k",
            body: Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": "http://localhost:5173"])
        #expect(refreshed.status == 200)
        #expect(refreshed.json?["id_token"]?.stringValue?.isEmpty == false)
        #expect(refreshed.headers["access-control-allow-origin"] == "http://localhost:5173")
        // No body, no Content-Type: an admin GET.
        let batchGet = await broker.firebase(
            "GET", Self.v1 + "/projects/stub-project/accounts:batchGet?maxResults=10",
            headers: ["Authorization": "Bearer owner"])
        #expect(batchGet.status == 200)
        #expect(batchGet.json?["users"]?.arrayValue?.count == 1)
    }

    // MARK: CORS for the origins it serves

    @Test(arguments: [
        "http://localhost:3000", "http://localhost", "http://127.0.0.1:8080", "http://[::1]:5173",
        "https://app.example.com",
    ])
    func aServedOriginGetsItsOriginEchoed(_ origin: String) async throws {
        let broker = try await Self.start(allowedOrigins: ["https://app.example.com"])
        let response = await Self.post(
            broker, Self.signUpPath, Self.credentials, headers: ["Origin": origin, "Content-Type": "application/json"])
        #expect(response.status == 200)
        #expect(response.headers["access-control-allow-origin"] == origin)
        #expect(response.headers["vary"]?.contains("Origin") == true)
        #expect(await broker.store.account(email: "owner@example.com") != nil)
    }

    @Test func anOriginNotListedIsRefusedEvenWithAList() async throws {
        let broker = try await Self.start(allowedOrigins: ["https://app.example.com"])
        for origin in ["https://app.example.com.evil.example", "http://app.example.com", "https://app.example.com:8443"] {
            let response = await Self.post(
                broker, Self.signUpPath, Self.credentials, headers: ["Origin": origin, "Content-Type": "application/json"])
            #expect(response.status == 403)
            #expect(response.headers["access-control-allow-origin"] == nil)
        }
        #expect(await broker.store.account(email: "owner@example.com") == nil)
    }

    @Test func aServedOriginsPreflightIsAnswered() async throws {
        let broker = try await Self.start()
        let preflight = await broker.firebase(
            "OPTIONS", Self.signUpPath,
            headers: [
                "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,x-client-version,x-firebase-gmpid",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == "http://localhost:3000")
        #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
        #expect(preflight.headers["access-control-allow-headers"] == "content-type,x-client-version,x-firebase-gmpid")
        #expect(preflight.headers["vary"]?.contains("Origin") == true)
        #expect(preflight.body.isEmpty)
    }

    @Test func aForeignOriginsPreflightGetsNoAllowHeaders() async throws {
        let broker = try await Self.start()
        let preflight = await broker.firebase(
            "OPTIONS", Self.signUpPath,
            headers: [
                "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            ])
        #expect(preflight.status == 403)
        #expect(Self.code(preflight) == "PERMISSION_DENIED")
        for header in ["access-control-allow-origin", "access-control-allow-methods", "access-control-allow-headers"] {
            #expect(preflight.headers[header] == nil)
        }
    }

    @Test(arguments: [
        ("http://localhost", true), ("http://localhost:3000", true), ("http://127.0.0.1:65535", true),
        ("http://[::1]", true), ("http://[::1]:8080", true), ("http://localhost:0", false),
        ("http://localhost:65536", false), ("http://localhost:", false), ("http://localhost:30a", false),
        ("http://localhost.evil.example", false), ("http://localhost:3000/", false), ("https://localhost", false),
        ("http://127.0.0.2", false), ("http://LOCALHOST", false), ("null", false), ("", false),
        ("http://localhost@evil.example", false),
    ])
    func loopbackOrigins(_ origin: String, _ loopback: Bool) {
        #expect(FirebaseOriginPolicy.isLoopback(origin: origin) == loopback)
    }
}
