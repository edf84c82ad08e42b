import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The answers schemathesis cannot reach (a provider sign-in needs a token the stubs signed) checked against
/// `openapi.json`: real session, user and error bodies of a live broker against the documented schemas.
@Suite struct OpenAPIConformanceTests {
    static let document: JSONValue? = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/BrokerHTTP/Operations/openapi.json")
        return (try? Data(contentsOf: file)).flatMap { JSONValue.parse(Array($0)) }
    }()

    /// The documented schema of `method path`'s `status` answer (JSON).
    static func schema(_ method: String, _ path: String, _ status: Int) throws -> JSONValue {
        let document = try #require(document)
        let response = try resolve(
            try #require(
                document["paths"]?[path]?[method.lowercased()]?["responses"]?[String(status)],
                "\(method) \(path) \(status)"))
        return try #require(response["content"]?["application/json"]?["schema"])
    }

    static func resolve(_ value: JSONValue) throws -> JSONValue {
        guard let reference = value["$ref"]?.stringValue else { return value }
        var target = try #require(document)
        for part in reference.dropFirst(2).split(separator: "/") {
            target = try #require(target[String(part)], "\(reference)")
        }
        return try resolve(target)
    }

    /// What `value` breaks of `schema` (the keywords the document uses: type, enum, required, properties,
    /// additionalProperties false, items, oneOf, minLength), as `path: problem` lines.
    static func violations(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") throws -> [String] {
        let schema = try resolve(schema)
        if let options = schema["oneOf"]?.arrayValue {
            let matching = try options.filter { try violations(value, $0, at: path).isEmpty }
            return matching.count == 1 ? [] : ["\(path): matches \(matching.count) of oneOf"]
        }
        var problems: [String] = []
        if let types = schema["type"].map({ $0.arrayValue ?? [$0] })?.compactMap(\.stringValue),
            !types.contains(where: { Self.has(value, type: $0) })
        {
            return ["\(path): \(value) is not \(types)"]
        }
        if let allowed = schema["enum"]?.arrayValue, !allowed.contains(value) {
            problems.append("\(path): \(value) not in enum")
        }
        if let minimum = schema["minLength"]?.intValue, let text = value.stringValue, text.count < minimum {
            problems.append("\(path): shorter than \(minimum)")
        }
        if let members = value.objectValue {
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                problems.append("\(path): \(name) missing")
            }
            let properties = schema["properties"]?.objectValue ?? [:]
            for (name, member) in members {
                if let property = properties[name] {
                    problems += try violations(member, property, at: "\(path).\(name)")
                } else if schema["additionalProperties"] == .bool(false) {
                    problems.append("\(path): \(name) is not documented")
                }
            }
        }
        if let items = schema["items"], let elements = value.arrayValue {
            for (index, element) in elements.enumerated() {
                problems += try violations(element, items, at: "\(path)[\(index)]")
            }
        }
        return problems
    }

    static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", _): value.intValue != nil
        case ("number", _): value.doubleValue != nil
        default: false
        }
    }

    @Test func theValidatorRefusesWhatTheSchemaForbids() throws {
        let session = try Self.schema("POST", "/v1/signup", 201)
        #expect(try !Self.violations(["isNewUser": "yes"], session).isEmpty)
        let error = try Self.schema("POST", "/v1/signup", 409)
        #expect(try Self.violations(["error": ["code": "EMAIL_EXISTS", "message": "m"]], error).isEmpty)
        #expect(try !Self.violations(["error": ["code": "INVALID_TOKEN", "message": "m"]], error).isEmpty)
        #expect(try !Self.violations(["error": ["code": "EMAIL_EXISTS", "message": "m", "extra": 1]], error).isEmpty)
    }

    @Test func providerSignInsLinksAndTheirRefusalsAnswerAsDocumented() async throws {
        try await withBroker(serviceAccount: true) { broker in
            let claims: [String: JSONValue] = ["sub": "g-1", "email": "g@example.com", "email_verified": true]
            let created = try await broker.googleSignIn(claims)
            let again = try await broker.googleSignIn(claims)
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 7, email: "G@example.com"))
            let apple = try await broker.post(
                "/v1/signin/apple",
                [
                    "identityToken": .string(
                        try broker.stubs.idToken(
                            "apple", claims: ["sub": "a-1", "nonce": .string(TestTokens.hashedNonce("n"))])),
                    "rawNonce": "n", "fullName": ["givenName": "Ada", "familyName": "Lovelace"],
                ])
            let idToken = try #require(created.json?["idToken"]?.stringValue)
            let link = try await broker.post(
                "/v1/me/identities/kakao",
                ["accessToken": .string(broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: 8)))],
                headers: ["Authorization": "Bearer " + idToken])
            let answers: [(String, String, TestResponse)] = [
                ("POST", "/v1/signin/{provider}", created), ("POST", "/v1/signin/{provider}", again),
                ("POST", "/v1/signin/{provider}", kakao), ("POST", "/v1/signin/{provider}", apple),
                ("POST", "/v1/me/identities/{provider}", link),
            ]
            #expect(answers.map(\.2.status) == [201, 200, 409, 201, 200])
            #expect(kakao.errorCode == "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL")
            #expect(created.json?["customToken"]?.stringValue != nil)
            for (method, path, answer) in answers {
                let body = try #require(answer.json)
                #expect(
                    try Self.violations(body, try Self.schema(method, path, answer.status)) == [], "\(method) \(path)")
                #expect(answer.headers["x-request-id"] != nil)
            }
        }
    }
}
