import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The Firebase-compatible listener live (contract section 11): its own loopback port, serving only the Firebase
/// surface, with the `Host` check, over real sockets.
@Suite struct FirebaseListenerTests {
    static func withFirebase(_ body: (BrokerHarness, String) async throws -> Void) async throws {
        let harness = try await BrokerHarness.start(firebase: true)
        do {
            try await body(harness, try #require(harness.firebaseURL))
            await harness.stop()
        } catch {
            await harness.stop()
            throw error
        }
    }

    @Test func theFirebaseListenerIsItsOwnPortAndServesNothingElse() async throws {
        try await Self.withFirebase { broker, firebaseURL in
            #expect(firebaseURL != broker.baseURL)
            #expect(firebaseURL.hasPrefix("http://127.0.0.1:"))
            for path in ["/healthz", "/v1/signup", "/admin/v1/users", "/.well-known/jwks.json"] {
                let response = try await broker.firebase("GET", path)
                #expect(response.status == 404, "\(path)")
                #expect(response.json?["error"]?["code"]?.intValue == 404)
            }
            // The main listener does not serve Firebase paths.
            let onMain = try await broker.post(
                FirebaseEndpoints.identityToolkitPath + "/accounts:signUp?key=k",
                ["email": "live@example.com", "password": "secret-pass"])
            #expect(onMain.status == 404)
            #expect(onMain.errorCode == "NOT_FOUND")
            #expect(try await broker.count("accounts") == 0)
        }
    }

    static func code(_ response: TestResponse) -> String? {
        response.json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    @Test func aSignUpAndAFormEncodedRefreshOverSockets() async throws {
        try await Self.withFirebase { broker, _ in
            let signUp = try await broker.firebase(
                "POST", FirebaseEndpoints.identityToolkitPath + "/accounts:signUp?key=k",
                json: ["email": "live@example.com", "password": "secret-pass", "returnSecureToken": true])
            #expect(signUp.status == 200)
            let refresh = try #require(signUp.json?["refreshToken"]?.stringValue)
            let uid = try #require(signUp.json?["localId"]?.stringValue)
            let refreshed = try await broker.firebase(
                "POST", FirebaseEndpoints.secureTokenPath + "?key=k",
                body: Array("grant_type=refresh_token&refresh_token=\(refresh)".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(refreshed.status == 200)
            #expect(refreshed.json?["user_id"]?.stringValue == uid)
            #expect(refreshed.json?["expires_in"]?.stringValue == "3600")
            // The session is this listener's: the native refresh refuses its (new) token.
            let next = try #require(refreshed.json?["refresh_token"]?.stringValue)
            let native = try await broker.post("/v1/token", ["refreshToken": .string(next)])
            #expect(native.status == 401)
            #expect(native.errorCode == "INVALID_REFRESH_TOKEN")
            // A page that rebound a name to 127.0.0.1 is refused, and nothing is stored.
            let rebound = try await broker.firebase(
                "POST", FirebaseEndpoints.identityToolkitPath + "/accounts:signUp?key=k",
                json: ["email": "rebound@example.com", "password": "secret-pass"], headers: ["Host": "rebound.example:9099"])
            #expect(rebound.status == 403)
            #expect(Self.code(rebound) == "PERMISSION_DENIED")
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func serveStartsTheListenerFromTheConfigAndWarnsOfRelaxedSettings() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        var document = stubs.brokerConfig()
        if case .object(var members) = document {
            members["firebaseCompat"] = ["enabled": true, "port": 0, "acceptUnsignedCustomTokens": true]
            document = .object(members)
        }
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: configPath))
        let server = try ProcessTests.spawn(
            ["serve", "--port", "0", "--config", configPath, "--database", directory.appendingPathComponent("b.sqlite").path])
        let firebaseLine = try await server.waitForLog("\"listening (Firebase-compatible)\"")
        let listening = try await server.waitForLog("\"listening\"")
        let firebasePort = try #require(JSONValue.parse(Array(firebaseLine.utf8))?["port"]?.intValue)
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue)
        #expect(firebasePort != port)
        #expect(server.stderr.contains("firebaseCompat.acceptUnsignedCustomTokens"))
        let client = try CurlHTTPClient()
        func send(_ port: Int64, _ path: String, _ body: JSONValue) async throws -> HTTPClientResponse {
            try await client.send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)\(path)", headers: [("Content-Type", "application/json")],
                    body: body.serialized(), timeout: 30))
        }
        let unsigned = Base64URL.encode(JSONValue.object(["alg": "none"]).serialized()) + "."
            + Base64URL.encode(JSONValue.object(["uid": "process-uid"]).serialized()) + "."
        let path = FirebaseEndpoints.identityToolkitPath + "/accounts:signInWithCustomToken?key=k"
        let onFirebase = try await send(firebasePort, path, ["token": .string(unsigned), "returnSecureToken": true])
        #expect(onFirebase.status == 200)
        #expect(JSONValue.parse(onFirebase.body)?["isNewUser"]?.boolValue == true)
        let onMain = try await send(port, path, ["token": .string(unsigned)])
        #expect(onMain.status == 404)
        server.terminate()
        #expect(try await server.wait(seconds: 60) == 0)
        await client.shutdown()
        await stubs.stop()
    }

    @Test func aBatchCreateOfAThousandUsersWithHashesFitsTheListenersBodyLimit() async throws {
        try await Self.withFirebase { broker, _ in
            let users: [JSONValue] = (0..<1000).map { index in
                [
                    "localId": .string("batch-\(index)"), "email": .string("batch-\(index)@example.com"),
                    "passwordHash": .string(Base64.encode(Digest.sha256("hash-\(index)"))),
                    "salt": .string(Base64.encode(Array("salt-\(index)-0123456789".utf8))),
                    "displayName": .string("Batch User \(index)"), "createdAt": "1600000000000",
                ]
            }
            let body: JSONValue = [
                "users": .array(users), "hashAlgorithm": "HMAC_SHA256",
                "signerKey": .string(Base64.encode(Array("a-signer-key-of-some-length".utf8))),
            ]
            #expect(body.serialized().count > 64 * 1024)
            let path = FirebaseEndpoints.identityToolkitPath + "/projects/stub-project/accounts:batchCreate"
            let response = try await broker.firebase("POST", path, json: body, headers: ["Authorization": "Bearer owner"])
            #expect(response.status == 200)
            let errors = response.json?["error"]?.arrayValue ?? []
            #expect(errors.isEmpty)
            #expect(try await broker.count("accounts") == 1000)

            // Past the limit is 413, and nothing is stored.
            let tooLarge = [UInt8](repeating: UInt8(ascii: " "), count: FirebaseSurface.maxBodyBytes + 1)
            let refused = try await broker.firebase(
                "POST", path, body: tooLarge, headers: ["Authorization": "Bearer owner", "Content-Type": "application/json"])
            #expect(refused.status == 413)
            #expect(try await broker.count("accounts") == 1000)
        }
    }

    /// What the HTTP server refuses itself, and a path no route has, answer in the dialect of the listener: on the
    /// Firebase listener Firebase's error shape (`error.code` the status, the code at the start of `message`,
    /// `errors[0]`, `status`), on the main listener the native one; with `X-Request-Id`, and nothing stored.
    @Test func theServersOwnRefusalsAnswerInTheListenersDialect() async throws {
        try await Self.withFirebase { broker, _ in
            let path = FirebaseEndpoints.identityToolkitPath + "/accounts:signUp?key=k"
            let tooLarge = [UInt8](repeating: UInt8(ascii: " "), count: FirebaseSurface.maxBodyBytes + 1)
            let refused = try await broker.firebase(
                "POST", path, body: tooLarge, headers: ["Content-Type": "application/json", "X-Request-Id": "big-1"])
            #expect(refused.status == 413)
            #expect(refused.json?["error"]?["code"]?.intValue == 413)
            #expect(
                refused.json?["error"]?["message"]?.stringValue
                    == "INVALID_ARGUMENT : Request payload size exceeds the limit.")
            #expect(refused.json?["error"]?["status"]?.stringValue == "INVALID_ARGUMENT")
            #expect(refused.json?["error"]?["errors"]?.arrayValue?.first?["reason"]?.stringValue == "invalid")
            #expect(refused.headers["x-request-id"] == "big-1")
            #expect(refused.headers["content-type"] == "application/json")

            let unknown = try await broker.firebase("POST", "/identitytoolkit.googleapis.com/v1/accounts:nothing?key=k")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"]?["code"]?.intValue == 404)
            #expect(Self.code(unknown) == "NOT_FOUND")
            #expect(unknown.json?["error"]?["status"]?.stringValue == "NOT_FOUND")

            // The main listener keeps the native shape for the same refusal.
            let native = try await broker.request(
                "POST", "/v1/signup", body: [UInt8](repeating: UInt8(ascii: " "), count: 64 * 1024 + 1),
                headers: ["Content-Type": "application/json"])
            #expect(native.status == 413)
            #expect(native.errorCode == "PAYLOAD_TOO_LARGE")
            #expect(native.json?["error"]?["message"]?.stringValue == "The request body exceeds 65536 bytes.")
            #expect(try await broker.count("accounts") == 0)
        }
    }
}
