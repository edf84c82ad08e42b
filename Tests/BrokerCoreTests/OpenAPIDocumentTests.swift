import BrokerCore
import BrokerHTTP
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The OpenAPI document: served as committed, in step with the routes the app mounts, and naming only the
/// contract's error codes, each under its own status.
@Suite struct OpenAPIDocumentTests {
    /// `openapi.json` as committed.
    static func committedBytes() throws -> [UInt8] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/BrokerHTTP/Operations/openapi.json")
        return Array(try Data(contentsOf: file))
    }

    static func document() throws -> JSONValue { try #require(JSONValue.parse(try committedBytes())) }

    /// `METHOD /path` with every `{parameter}` written `{}`, so differently named parameters still match.
    static func key(_ method: String, _ pattern: String) -> String {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? "{}" : String(segment)
        }
        return method.uppercased() + " " + segments.joined(separator: "/")
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// Every operation of the document: its key and its object.
    static func operations(_ document: JSONValue) throws -> [(key: String, operation: JSONValue)] {
        let paths = try #require(document["paths"]?.objectValue)
        return paths.flatMap { path, item in
            (item.objectValue ?? [:]).filter { methods.contains($0.key) }.map { (key(String($0.key), path), $0.value) }
        }
    }

    /// The contract's codes by status (section 6).
    static let contractCodes: [Int: Set<String>] = [
        400: [
            "INVALID_REQUEST", "MISSING_NONCE", "WEAK_PASSWORD", "INVALID_EMAIL", "INVALID_LOGIN_CREDENTIALS",
            "KAKAO_EMAIL_REQUIRED", "LAST_IDENTITY", "INVALID_OOB_CODE", "INVALID_MFA_CODE", "INVALID_PASSKEY",
        ],
        401: [
            "INVALID_TOKEN", "TOKEN_EXPIRED", "INVALID_AUDIENCE", "INVALID_ISSUER", "NONCE_MISMATCH", "TOKEN_REPLAYED",
            "KAKAO_APP_MISMATCH", "INVALID_REFRESH_TOKEN", "UNAUTHENTICATED", "INVALID_WEBHOOK", "MFA_REQUIRED",
            "INVALID_MFA_PENDING_CREDENTIAL", "RECENT_SIGN_IN_REQUIRED", "INVALID_PASSKEY",
        ],
        403: ["USER_DISABLED", "BLOCKED_BY_HOOK"], 404: ["NOT_FOUND", "PROVIDER_NOT_ENABLED"],
        409: ["EMAIL_EXISTS", "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL", "IDENTITY_ALREADY_LINKED", "PASSKEY_EXISTS"],
        413: ["PAYLOAD_TOO_LARGE"], 429: ["TOO_MANY_ATTEMPTS"], 501: ["MAIL_NOT_CONFIGURED"],
        502: ["PROVIDER_MISCONFIGURED"], 503: ["PROVIDER_UNAVAILABLE", "STORAGE_UNAVAILABLE", "HOOK_UNAVAILABLE"],
        500: ["INTERNAL"],
    ]

    /// Follows a local `$ref` (`#/components/...`).
    static func resolve(_ value: JSONValue, in document: JSONValue) throws -> JSONValue {
        guard let reference = value["$ref"]?.stringValue else { return value }
        var target = document
        for part in reference.dropFirst(2).split(separator: "/") {
            target = try #require(target[String(part)], "unresolved \(reference)")
        }
        return try resolve(target, in: document)
    }

    @Test func theServedDocumentIsTheCommittedFile() async throws {
        let broker = try await InProcessBroker.start()
        let response = await broker.get("/openapi.json")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        // Not equal: openapi.json was edited without running scripts/embed-openapi.
        #expect(response.body == (try Self.committedBytes()))
        #expect(try Self.document()["openapi"]?.stringValue?.hasPrefix("3.1.") == true)
    }

    @Test func everyMountedRouteIsDocumentedAndEveryDocumentedOneIsMounted() async throws {
        let broker = try await InProcessBroker.start()
        let app = BrokerApp(services: broker.services, surfaces: BrokerApp.mainSurfaces(broker.services))
        let mounted = Set(app.routes.map { Self.key($0.method, $0.pattern) })
        let documented = Set(try Self.operations(try Self.document()).map(\.key))
        #expect(mounted.count > 20)
        #expect(mounted.subtracting(documented).sorted() == [], "mounted but not in openapi.json")
        #expect(documented.subtracting(mounted).sorted() == [], "in openapi.json but not mounted")
    }

    @Test func theRouteKeyIgnoresParameterNamesOnly() {
        #expect(Self.key("post", "/v1/me/identities/{provider}") == Self.key("POST", "/v1/me/identities/{id}"))
        #expect(Self.key("GET", "/v1/me") != Self.key("GET", "/v1/me/identities"))
        #expect(Self.key("GET", "/v1/me") != Self.key("PATCH", "/v1/me"))
    }

    @Test func everyErrorResponseNamesContractCodesOfItsStatusAndEveryResponseButThe413ItsRequestID() throws {
        let document = try Self.document()
        var errorResponses = 0
        for (key, operation) in try Self.operations(document) {
            let responses = try #require(operation["responses"]?.objectValue, "\(key) has no responses")
            #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(key) has no success response")
            if operation["requestBody"] != nil {
                #expect(responses["413"] != nil, "\(key) takes a body but does not document 413")
            }
            for (statusText, reference) in responses {
                let status = try #require(Int(statusText), "\(key): status \(statusText)")
                let response = try Self.resolve(reference, in: document)
                // The server answers 413 before the app sees the request, so that one has no request id.
                #expect(
                    (response["headers"]?["X-Request-Id"] != nil) == (status != 413), "\(key) \(status) X-Request-Id")
                guard status >= 400 else { continue }
                // The mails' /auth/action page answers a browser with HTML pages, errors included; the API's
                // JSON error body is for the API.
                if response["content"]?["text/html; charset=utf-8"] != nil, response["content"]?["application/json"] == nil,
                    key.hasSuffix("/auth/action")
                { continue }
                errorResponses += 1
                let schema = try Self.resolve(
                    try #require(response["content"]?["application/json"]?["schema"], "\(key) \(status)"), in: document)
                let codes = try #require(
                    schema["properties"]?["error"]?["properties"]?["code"]?["enum"]?.arrayValue, "\(key) \(status)"
                ).compactMap(\.stringValue)
                #expect(!codes.isEmpty)
                let allowed = Self.contractCodes[status] ?? []
                #expect(Set(codes).subtracting(allowed).sorted() == [], "\(key) \(status)")
                let retries = codes.contains {
                    ["TOO_MANY_ATTEMPTS", "PROVIDER_UNAVAILABLE", "STORAGE_UNAVAILABLE"].contains($0)
                }
                #expect((response["headers"]?["Retry-After"] != nil) == retries, "\(key) \(status) Retry-After")
            }
        }
        #expect(errorResponses > 50)
    }
}
