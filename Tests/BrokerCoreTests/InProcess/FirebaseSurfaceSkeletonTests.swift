import BrokerCore
import BrokerHTTP
import BrokerFirebase
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Firebase-compatible surface's skeleton (contract section 11): the listener's checks (Host, API key,
/// `Bearer owner`, the project), its error body, Firebase-shaped ID tokens and their verification, sessions that
/// stay on the listener they were made on, and the separation of the two listeners.
@Suite struct FirebaseSurfaceSkeletonTests {
    static let toolkit = FirebaseEndpoints.identityToolkitPath

    /// A surface serving probe routes through the Firebase surface's own checks and error rendering.
    struct ProbeSurface: Surface {
        let firebase: FirebaseSurface
        let table: FirebaseRouteTable
        func mount(on router: inout Router) { table.register(on: &router, surface: firebase) }
        func render(_ error: any Error) -> RenderedError { firebase.render(error) }
    }

    /// Counts the calls that reached a handler.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [FirebaseCall] = []
        func add(_ call: FirebaseCall) { lock.withLock { stored.append(call) } }
        var all: [FirebaseCall] { lock.withLock { stored } }
    }

    static func probe(_ broker: InProcessBroker, calls: Calls) -> BrokerApp {
        var table = FirebaseRouteTable()
        let answer: FirebaseHandler = { call in
            calls.add(call)
            return .json(200, ["ok": true])
        }
        table.add("POST", toolkit + "/accounts:probe", access: .client, answer)
        table.add("POST", toolkit + "/projects/{project}/accounts:probe", access: .admin, answer)
        table.addProjectVerb("POST", "probeVerb", access: .admin, answer)
        let surface = FirebaseSurface(services: broker.services, listener: InProcessBroker.firebaseListener)
        return BrokerApp(services: broker.services, surfaces: [ProbeSurface(firebase: surface, table: table)])
    }

    static func send(
        _ app: BrokerApp, _ path: String, query: [String: String] = ["key": "any-api-key"],
        headers: [String: String] = ["Host": "127.0.0.1:9099"], body: JSONValue = [:]
    ) async -> (status: Int, json: JSONValue?) {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) { headers["Content-Type"] = "application/json" }
        let response = await app.handle(
            HTTPRequest(method: "POST", path: path, query: query, headers: headers, body: body.serialized()))
        return (response.status, JSONValue.parse(response.body))
    }

    /// Firebase's code: `error.message` up to ` : `.
    static func code(_ json: JSONValue?) -> String? {
        json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    // MARK: The listener's checks

    @Test(arguments: [
        "127.0.0.1:9099", "127.0.0.1", "localhost", "localhost:9099", "LOCALHOST:1234", "127.0.0.1:8080", "[::1]:9099",
        "[::1]",
    ])
    func theseHostsAreTheListener(_ host: String) {
        #expect(FirebaseListenerChecks.allows(host: host, listener: InProcessBroker.firebaseListener))
    }

    @Test(arguments: [
        "evil.example", "evil.example:9099", "127.0.0.1.evil.example:9099", "localhost.evil.example", "", "127.0.0.1:",
        "127.0.0.1:99999", "127.0.0.1:90a", "[::1", "[::1]x", "0.0.0.0:9099", "127.0.0.2:9099",
    ])
    func theseAreNot(_ host: String) {
        #expect(!FirebaseListenerChecks.allows(host: host, listener: InProcessBroker.firebaseListener))
    }

    @Test func aRemoteListenerAcceptsItsOwnHostOnItsOwnPort() {
        let listener = FirebaseSurface.Listener(host: "192.168.1.5", port: 9099)
        #expect(FirebaseListenerChecks.allows(host: "192.168.1.5:9099", listener: listener))
        #expect(!FirebaseListenerChecks.allows(host: "192.168.1.5:9100", listener: listener))
        #expect(!FirebaseListenerChecks.allows(host: "192.168.1.5", listener: listener))
        #expect(FirebaseListenerChecks.allows(host: "192.168.1.5:1", listener: .init(host: "192.168.1.5", port: nil)))
    }

    @Test func aForeignHostIsRefusedBeforeAnythingIsDone() async throws {
        let broker = try await InProcessBroker.start()
        let calls = Calls()
        let app = Self.probe(broker, calls: calls)
        for path in [Self.toolkit + "/accounts:probe", Self.toolkit + "/projects/demo-project:probeVerb"] {
            let refused = await Self.send(app, path, headers: ["Host": "rebound.example:9099", "Authorization": "Bearer owner"])
            #expect(refused.status == 403)
            #expect(Self.code(refused.json) == "PERMISSION_DENIED")
            let missing = await Self.send(app, path, headers: [:])
            #expect(missing.status == 403)
        }
        #expect(calls.all.isEmpty)
    }

    @Test func clientRoutesNeedAnAPIKeyOrOwner() async throws {
        let broker = try await InProcessBroker.start()
        let calls = Calls()
        let app = Self.probe(broker, calls: calls)
        let path = Self.toolkit + "/accounts:probe"
        let keyless = await Self.send(app, path, query: [:])
        #expect(keyless.status == 403)
        #expect(keyless.json?["error"]?["message"]?.stringValue == "PERMISSION_DENIED : The request is missing a valid API key.")
        #expect(keyless.json?["error"]?["code"]?.intValue == 403)
        #expect(calls.all.isEmpty)

        #expect(await Self.send(app, path).status == 200)
        let headerKey = await Self.send(app, path, query: [:], headers: ["Host": "localhost:9099", "X-Goog-Api-Key": "k"])
        #expect(headerKey.status == 200)
        #expect(await Self.send(app, path, query: ["key": String(repeating: "k", count: 300)]).status == 403)
        let owner = await Self.send(app, path, query: [:], headers: ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"])
        #expect(owner.status == 200)
        #expect(calls.all.map(\.isAdmin) == [false, false, true])
        #expect(calls.all.map(\.apiKey) == ["any-api-key", "k", nil])
    }

    @Test func adminRoutesNeedBearerOwnerAndTheBrokersProject() async throws {
        let broker = try await InProcessBroker.start()
        let calls = Calls()
        let app = Self.probe(broker, calls: calls)
        let project = broker.services.config.projectID
        let path = Self.toolkit + "/projects/\(project)/accounts:probe"
        let anonymous = await Self.send(app, path)
        #expect(anonymous.status == 401)
        #expect(Self.code(anonymous.json) == "UNAUTHENTICATED")
        let wrong = await Self.send(app, path, headers: ["Host": "127.0.0.1:9099", "Authorization": "Bearer not-owner"])
        #expect(wrong.status == 401)
        #expect(Self.code(wrong.json) == "UNAUTHENTICATED")
        let other = await Self.send(
            app, Self.toolkit + "/projects/someone-else/accounts:probe",
            headers: ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"])
        #expect(other.status == 403)
        #expect(Self.code(other.json) == "PERMISSION_DENIED")
        #expect(calls.all.isEmpty)

        for owner in ["Bearer owner", "bearer OWNER"] {
            #expect(await Self.send(app, path, headers: ["Host": "127.0.0.1:9099", "Authorization": owner]).status == 200)
        }
        let verb = await Self.send(
            app, Self.toolkit + "/projects/\(project):probeVerb", headers: ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"])
        #expect(verb.status == 200)
        let unknownVerb = await Self.send(
            app, Self.toolkit + "/projects/\(project):nope", headers: ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"])
        #expect(unknownVerb.status == 404)
        let otherVerb = await Self.send(
            app, Self.toolkit + "/projects/elsewhere:probeVerb", headers: ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"])
        #expect(otherVerb.status == 403)
        #expect(calls.all.count == 3)
        #expect(calls.all.allSatisfy { $0.isAdmin })
        #expect(calls.all.map { $0.context.parameters["project"] } == [project, project, project])
    }

    @Test func aBodyThatIsNotAJSONObjectIsRefused() async throws {
        let broker = try await InProcessBroker.start()
        let calls = Calls()
        let app = Self.probe(broker, calls: calls)
        let response = await app.handle(
            HTTPRequest(
                method: "POST", path: Self.toolkit + "/accounts:probe", query: ["key": "k"],
                headers: ["Host": "127.0.0.1:9099", "Content-Type": "application/json"], body: Array("[1,".utf8)))
        #expect(response.status == 400)
        #expect(Self.code(JSONValue.parse(response.body)) == "INVALID_ARGUMENT")
        #expect(calls.all.isEmpty)
    }

    // MARK: The two listeners

    @Test func theListenersServeOnlyTheirOwnSurfaces() async throws {
        let broker = try await InProcessBroker.start()
        // The Firebase paths are not on the main listener...
        let onMain = await broker.post(Self.toolkit + "/accounts:signUp?key=k", ["email": "a@example.com", "password": "secret-1"])
        #expect(onMain.status == 404)
        #expect(onMain.errorCode == "NOT_FOUND")
        #expect(!broker.services.config.projectID.isEmpty)
        let main = BrokerApp(services: broker.services, surfaces: BrokerApp.mainSurfaces(broker.services))
        #expect(main.routes.allSatisfy { !$0.pattern.contains("googleapis") })
        // ...and the native, admin and operations ones are not on the Firebase listener.
        for (method, path) in [("POST", "/v1/signup"), ("GET", "/healthz"), ("GET", "/admin/v1/users"), ("POST", "/v1/token")] {
            let response = await broker.firebase(method, path, json: method == "POST" ? ["email": "a@example.com"] : nil)
            #expect(response.status == 404, "\(path)")
            #expect(response.json?["error"]?["code"]?.intValue == 404)
            #expect(Self.code(response.json) == "NOT_FOUND")
        }
        #expect(await broker.store.account(email: "a@example.com") == nil)
    }

    // MARK: Errors

    @Test func errorsHaveFirebasesBody() throws {
        let body = try #require(JSONValue.parse(FirebaseError("EMAIL_EXISTS").response.body))
        #expect(
            body
                == [
                    "error": [
                        "code": 400, "message": "EMAIL_EXISTS",
                        "errors": [["message": "EMAIL_EXISTS", "domain": "global", "reason": "invalid"]],
                    ]
                ])
        let weak = try #require(FirebaseError.mapping(AccountError(.weakPassword)))
        #expect(weak.message.hasPrefix("WEAK_PASSWORD : "))
        #expect(weak.status == 400)
    }

    struct MappingCase: Sendable, CustomTestStringConvertible {
        var error: any Error & Sendable
        var code: String
        var status: Int
        var testDescription: String { "\(error) -> \(code)" }
    }

    static let mappingCases: [MappingCase] = [
        MappingCase(error: TokenError(.badSignature), code: "INVALID_IDP_RESPONSE", status: 400),
        MappingCase(error: TokenError(.invalidAudience), code: "INVALID_IDP_RESPONSE", status: 400),
        MappingCase(error: TokenError(.invalidIssuer), code: "INVALID_IDP_RESPONSE", status: 400),
        MappingCase(error: TokenError(.expired), code: "INVALID_IDP_RESPONSE", status: 400),
        MappingCase(error: TokenError(.replayed), code: "INVALID_IDP_RESPONSE", status: 400),
        MappingCase(error: TokenError(.nonceMismatch), code: "MISSING_OR_INVALID_NONCE", status: 400),
        MappingCase(error: TokenError(.missingNonce), code: "MISSING_OR_INVALID_NONCE", status: 400),
        MappingCase(error: ProviderError(.invalidToken), code: "INVALID_IDP_RESPONSE", status: 400),
        MappingCase(error: ProviderError(.unavailable), code: "UNAVAILABLE", status: 503),
        MappingCase(error: AccountError(.userDisabled), code: "USER_DISABLED", status: 400),
        MappingCase(error: AccountError(.emailExists), code: "EMAIL_EXISTS", status: 400),
        MappingCase(error: AccountError(.invalidLoginCredentials), code: "INVALID_LOGIN_CREDENTIALS", status: 400),
        MappingCase(error: AccountError(.identityAlreadyLinked), code: "FEDERATED_USER_ID_ALREADY_LINKED", status: 400),
        MappingCase(error: AccountError(.notFound), code: "USER_NOT_FOUND", status: 400),
        MappingCase(error: AccountError(.tooManyAttempts), code: "TOO_MANY_ATTEMPTS_TRY_LATER", status: 400),
        MappingCase(error: SessionError(.unauthenticated), code: "INVALID_ID_TOKEN", status: 400),
        MappingCase(error: SignInError(.providerNotEnabled), code: "OPERATION_NOT_ALLOWED", status: 400),
        MappingCase(error: AccountStoreError(.unavailable), code: "UNAVAILABLE", status: 503),
    ]

    @Test(arguments: mappingCases)
    func layerErrorsMapToFirebasesCodes(_ mapping: MappingCase) throws {
        let mapped = try #require(FirebaseError.mapping(mapping.error))
        #expect(mapped.code == mapping.code)
        #expect(mapped.status == mapping.status)
    }

    @Test func anUnmappedErrorIsA500WhoseCauseIsOnlyLogged() async throws {
        struct Secret: Error, CustomStringConvertible { var description: String { "the-secret-cause" } }
        let broker = try await InProcessBroker.start()
        let rendered = FirebaseSurface(services: broker.services, listener: InProcessBroker.firebaseListener).render(Secret())
        #expect(rendered.response.status == 500)
        #expect(!String(decoding: rendered.response.body, as: UTF8.self).contains("the-secret-cause"))
        #expect(rendered.cause == "the-secret-cause")
    }

    // MARK: Bodies

    @Test func bodiesIgnoreUnknownFieldsAndCheckTypes() throws {
        let body = FirebaseBody(members: [
            "email": "a@example.com", "returnSecureToken": true, "clientType": "CLIENT_TYPE_IOS", "validSince": "1700000000",
            "n": 5, "list": ["a", "b"], "bad": 7, "long": .string(String(repeating: "x", count: FirebaseBody.maximumStringBytes + 1)),
        ])
        #expect(try body.string("email", missing: "MISSING_EMAIL") == "a@example.com")
        #expect(try body.flag("returnSecureToken"))
        #expect(try body.flag("absent") == false)
        #expect(try body.optionalInt("validSince", range: 0...Int64.max) == 1_700_000_000)
        #expect(try body.optionalInt("n", range: 0...10) == 5)
        #expect(try body.strings("list") == ["a", "b"])
        #expect(throws: FirebaseError("MISSING_PASSWORD")) { try body.string("password", missing: "MISSING_PASSWORD") }
        for check in [
            { _ = try body.optionalString("bad") }, { _ = try body.optionalBool("email") },
            { _ = try body.optionalInt("email", range: 0...10) }, { _ = try body.optionalInt("n", range: 0...4) },
            { _ = try body.optionalString("long") }, { _ = try body.strings("email") }, { _ = try body.object("list") },
        ] as [() throws -> Void] {
            #expect(performing: check, throws: { ($0 as? FirebaseError)?.code == "INVALID_ARGUMENT" })
        }
    }

    @Test func aFormBodyIsReadAsStrings() throws {
        let request = HTTPRequest(
            method: "POST", path: FirebaseEndpoints.secureTokenPath,
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("grant_type=refresh_token&refresh_token=abc%2Bdef".utf8))
        let body = try FirebaseBody(request)
        #expect(try body.string("grant_type", missing: "MISSING_GRANT_TYPE") == "refresh_token")
        #expect(try body.string("refresh_token", missing: "MISSING_REFRESH_TOKEN") == "abc+def")
        #expect(try FirebaseBody(HTTPRequest(method: "GET", path: "/")).members.isEmpty)
    }
}
