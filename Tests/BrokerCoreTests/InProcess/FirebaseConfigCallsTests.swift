import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The calls firebase-ios-sdk makes about the project (`CreateAuthURIRequest`, `GetProjectConfigRequest`,
/// `GetRecaptchaConfigRequest`), replayed as the SDK builds them: path, method, `?key=` and body.
@Suite struct FirebaseConfigCallsTests {
    static let legacy = FirebaseEndpoints.legacyRelyingPartyPath

    static func createAuthUri(_ broker: InProcessBroker, _ body: JSONValue) async -> TestResponse {
        await FirebaseClientAPITests.iOS(broker, "createAuthUri", body)
    }

    @Test func createAuthUriSaysNothingAboutAnEmailUnderEnumerationProtection() async throws {
        let broker = try await FirebaseClientAPITests.start()
        #expect(await FirebaseClientAPITests.signUp(broker, "known@example.com").status == 200)
        for email in ["known@example.com", "unknown@example.com"] {
            let answer = await Self.createAuthUri(
                broker, ["identifier": .string(email), "continueUri": "http://localhost"])
            #expect(answer.status == 200)
            #expect(answer.json?["kind"] == "identitytoolkit#CreateAuthUriResponse")
            #expect(answer.json?["registered"] == nil)
            #expect(answer.json?["signinMethods"] == nil)
            #expect(answer.json?["sessionId"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func createAuthUriListsTheSignInMethodsWithoutProtection() async throws {
        let broker = try await FirebaseClientAPITests.start(firebaseCompat: ["emailEnumerationProtection": false])
        #expect(await FirebaseClientAPITests.signUp(broker, "known@example.com").status == 200)
        let known = await Self.createAuthUri(
            broker, ["identifier": "KNOWN@example.com", "continueUri": "http://localhost"])
        #expect(known.status == 200)
        #expect(known.json?["registered"] == true)
        #expect(known.json?["signinMethods"] == ["password"])
        #expect(known.json?["allProviders"] == ["password"])
        let claims: [String: JSONValue] = ["sub": "g-auth-uri", "email": "g@example.com", "email_verified": true]
        let idToken = try broker.stubs.idToken("google", claims: claims)
        let google = await broker.firebasePost(
            FirebaseEndpoints.identityToolkitPath + "/accounts:signInWithIdp?key=k",
            [
                "postBody": .string("id_token=\(idToken)&providerId=google.com"), "requestUri": "http://localhost",
                "returnSecureToken": true,
            ])
        #expect(google.status == 200)
        let linked = await Self.createAuthUri(
            broker, ["identifier": "g@example.com", "continueUri": "http://localhost"])
        #expect(linked.json?["signinMethods"] == ["google.com"])
        let unknown = await Self.createAuthUri(
            broker, ["identifier": "unknown@example.com", "continueUri": "http://localhost"])
        #expect(unknown.status == 200)
        #expect(unknown.json?["registered"] == false)
        #expect(unknown.json?["signinMethods"] == nil)
    }

    @Test func createAuthUriRefusesWhatItCannotAnswer() async throws {
        let broker = try await FirebaseClientAPITests.start(firebaseCompat: ["emailEnumerationProtection": false])
        let cases: [(JSONValue, String)] = [
            (["continueUri": "http://localhost"], "MISSING_IDENTIFIER"),
            (["identifier": "a@example.com"], "MISSING_CONTINUE_URI"),
            (["identifier": "not-an-email", "continueUri": "http://localhost"], "INVALID_IDENTIFIER"),
            (
                ["identifier": "a@example.com", "continueUri": "http://localhost", "providerId": "google.com"],
                "OPERATION_NOT_ALLOWED"
            ),
        ]
        for (body, code) in cases {
            let answer = await Self.createAuthUri(broker, body)
            #expect(answer.status == 400, "\(code)")
            #expect(FirebaseClientAPITests.code(answer) == code)
        }
        // A refused call stored nothing.
        #expect(await broker.store.account(email: "a@example.com") == nil)
    }

    @Test func getProjectConfigAnswersTheProjectAndItsDomainsOnBothPaths() async throws {
        let broker = try await FirebaseClientAPITests.start(
            firebaseCompat: ["allowedOrigins": ["https://app.example.com"]])
        for path in [Self.legacy + "/getProjectConfig", FirebaseEndpoints.identityToolkitPath + "/projects"] {
            let answer = await broker.firebase(
                "GET", path + "?key=AIzaSyTestKey", headers: FirebaseClientAPITests.iOSHeaders)
            #expect(answer.status == 200, "\(path)")
            #expect(answer.json?["projectId"]?.stringValue == broker.services.config.projectID)
            #expect(answer.json?["authorizedDomains"] == ["localhost", "127.0.0.1", "app.example.com"])
        }
        let keyless = await broker.firebase("GET", Self.legacy + "/getProjectConfig")
        #expect(keyless.status != 200)
    }

    @Test func recaptchaConfigEnforcesNothing() async throws {
        let broker = try await FirebaseClientAPITests.start()
        let answer = await broker.firebase(
            "GET",
            FirebaseEndpoints.identityToolkitV2Path + "/recaptchaConfig?key=AIzaSyTestKey&clientType=CLIENT_TYPE_IOS"
                + "&version=RECAPTCHA_ENTERPRISE", headers: FirebaseClientAPITests.iOSHeaders)
        #expect(answer.status == 200)
        #expect(answer.json?["recaptchaKey"] == nil)
        let states = try #require(answer.json?["recaptchaEnforcementState"]?.arrayValue)
        #expect(states.count == 2)
        #expect(states.allSatisfy { $0["enforcementState"] == "OFF" })
    }

    @Test func aCallNamingATenantIsRefusedNotServedFromTheDefaultPool() async throws {
        let broker = try await FirebaseClientAPITests.start()
        let owner = ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"]
        let project = "/projects/" + broker.services.config.projectID
        let v1 = FirebaseEndpoints.identityToolkitPath
        let v2 = FirebaseEndpoints.identityToolkitV2Path
        // The Admin SDK's tenant-scoped create and tenant management, by path.
        let byPath: [(String, String, JSONValue?)] = [
            ("POST", v1 + project + "/tenants/t-1/accounts", ["localId": "tenant-user"]),
            ("POST", v1 + project + "/tenants/t-1/accounts:lookup", ["localId": ["tenant-user"]]),
            ("GET", v2 + project + "/tenants", nil),
            ("POST", v2 + project + "/tenants", ["displayName": "t"]),
            ("GET", v2 + project + "/tenants/t-1", nil),
            ("GET", v2 + project + "/tenants/t-1/oauthIdpConfigs/oidc.x", nil),
        ]
        for (method, path, json) in byPath {
            let answer = await broker.firebase(method, path, json: json, headers: owner)
            #expect(answer.status == 400, "\(method) \(path)")
            #expect(FirebaseClientAPITests.code(answer) == "OPERATION_NOT_ALLOWED", "\(method) \(path)")
        }
        // A client call naming one in its body, as the iOS SDK sends `tenantId`, and in the query.
        let signUp = await FirebaseClientAPITests.iOS(
            broker, "signupNewUser",
            ["email": "tenant@example.com", "password": "secret-pass", "returnSecureToken": true, "tenantId": "t-1"])
        #expect(signUp.status == 400)
        #expect(FirebaseClientAPITests.code(signUp) == "OPERATION_NOT_ALLOWED")
        let viaQuery = await broker.firebase(
            "POST", v1 + "/accounts:signUp?key=k&tenantId=t-1",
            json: ["email": "tenant@example.com", "password": "secret-pass"])
        #expect(FirebaseClientAPITests.code(viaQuery) == "OPERATION_NOT_ALLOWED")
        // Nothing was stored in the default pool; an empty tenantId names none.
        #expect(await broker.store.account(email: "tenant@example.com") == nil)
        #expect(await broker.store.account(id: AccountID("tenant-user")) == nil)
        let plain = await FirebaseClientAPITests.iOS(
            broker, "signupNewUser",
            ["email": "plain@example.com", "password": "secret-pass", "returnSecureToken": true, "tenantId": ""])
        #expect(plain.status == 200)
    }
}
