import BrokerHTTP
import Foundation
import Testing

@testable import BrokerCore
@testable import BrokerModel

/// The one-pass writers (session body, account, request log line) write exactly the text the `JSONValue` path
/// wrote before them: the same keys, sorted, the same escapes, `null` for what is absent.
@Suite struct JSONWriterTests {
    /// An account with every optional field set, escapes in its texts, and two identities.
    static let full = Account(
        id: AccountID("u\"1"), email: "ann@example.com", emailVerified: true, displayName: "Ann \"A\"\n\u{1}é",
        photoURL: "https://example.com/a.png?x=1&y=2", disabled: false,
        createdAt: Date(timeIntervalSince1970: 1_700_000_000.123),
        lastSignInAt: Date(timeIntervalSince1970: 1_700_000_500),
        identities: [
            Identity(
                provider: ProviderID("google"), subject: "sub\\1", email: "ann@gmail.com",
                linkedAt: Date(timeIntervalSince1970: 1_700_000_001)),
            Identity(
                provider: ProviderID("apple"), subject: "s2", email: nil, linkedAt: Date(timeIntervalSince1970: 0)),
        ], isAnonymous: false)
    /// An account with nothing optional set.
    static let bare = Account(id: AccountID("g1"), createdAt: Date(timeIntervalSince1970: 5), isAnonymous: true)

    /// The session body as it was built before: a `JSONValue` object, serialized.
    static func tree(_ tokens: SessionTokens, user: Account, isNewUser: Bool) -> [UInt8] {
        var members: [String: JSONValue] = [
            "user": user.json, "isNewUser": .bool(isNewUser), "idToken": .string(tokens.idToken),
            "refreshToken": .string(tokens.refreshToken), "expiresIn": .int(Int64(tokens.expiresIn)),
        ]
        if let customToken = tokens.customToken { members["customToken"] = .string(customToken) }
        return JSONValue.object(members).serialized()
    }

    @Test func anAccountWritesTheTextOfItsJSONValue() throws {
        for account in [Self.full, Self.bare] {
            let text = account.jsonText.bytes
            #expect(String(decoding: text, as: UTF8.self) == String(decoding: account.json.serialized(), as: UTF8.self))
            #expect(JSONValue.parse(text) == account.json)
        }
        let bare = String(decoding: Self.bare.jsonText.bytes, as: UTF8.self)
        #expect(bare.contains(#""displayName":null,"email":null,"emailVerified":false,"identities":[]"#))
        #expect(bare.hasSuffix(#""lastSignInAt":null,"photoUrl":null,"uid":"g1"}"#))
    }

    @Test func aSessionBodyWritesTheTextOfItsTree() throws {
        let withCustom = SessionTokens(idToken: "a.b.c", refreshToken: "r\"t", expiresIn: 3600, customToken: "x.y.z")
        let without = SessionTokens(idToken: "a.b.c", refreshToken: "rt", expiresIn: 60, customToken: nil)
        for (tokens, user, isNew) in [(withCustom, Self.full, true), (without, Self.bare, false)] {
            let body = tokens.body(user: user, isNewUser: isNew).bytes
            #expect(
                String(decoding: body, as: UTF8.self)
                    == String(decoding: Self.tree(tokens, user: user, isNewUser: isNew), as: UTF8.self))
        }
        let text = String(decoding: without.body(user: Self.bare, isNewUser: false).bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"expiresIn":60,"idToken":"a.b.c","isNewUser":false,"refreshToken":"rt","user":{"#))
        #expect(!text.contains("customToken"))
        let response = HTTPResponse.json(201, withCustom.body(user: Self.full, isNewUser: true))
        #expect(response.status == 201)
        #expect(response.headers.first { $0.name == "Content-Type" }?.value == "application/json")
        #expect(JSONValue.parse(response.body)?["customToken"] == "x.y.z")
    }

    @Test func aWriterSeparatesMembersAndElementsAndEscapesAsSerializedDoes() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.int(-3)
        writer.string(nil)
        writer.bool(true)
        writer.beginObject()
        writer.endObject()
        writer.value(["k": [.double(1.5), "\u{7F}"]])
        writer.endArray()
        writer.key("b\"")
        writer.string("line\nend\t\\")
        writer.endObject()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == #"{"a":[-3,null,true,{},{"k":[1.5,"\u007f"]}],"b\"":"line\nend\t\\"}"#)
    }

    @Test func aLogLineIsSortedAndALaterFieldWinsOverAnEarlierOne() throws {
        let sink = MemoryLogSink()
        let logger = Logger(sink: sink, metadata: ["requestId": "r1", "shared": "from metadata", "zone": 2])
        logger.log(
            .warning, "request",
            fields: [
                ("status", .int(503)), ("shared", .string("from the line")), ("ratio", .double(.infinity)),
                ("status", .int(500)), ("agent", "a\"b"),
            ])
        logger.info("plain", metadata: ["shared": true])
        let lines = sink.lines
        #expect(lines.count == 2)
        let line = try #require(JSONValue.parse(Array(lines[0].utf8))?.objectValue)
        #expect(line["status"] == .int(500))
        #expect(line["shared"] == "from the line")
        #expect(line["ratio"] == .null)
        #expect(line["requestId"] == "r1")
        #expect(line["zone"] == .int(2))
        #expect(line["level"] == "warning")
        #expect(line["msg"] == "request")
        #expect(line["agent"] == "a\"b")
        // The same text the JSONValue path wrote: keys sorted, each once.
        #expect(lines[0] == String(decoding: JSONValue.object(line).serialized(), as: UTF8.self))
        #expect(lines[0].components(separatedBy: #""status":"#).count == 2)
        let plain = try #require(JSONValue.parse(Array(lines[1].utf8)))
        #expect(plain["shared"] == .bool(true))
        #expect(lines[1] == String(decoding: plain.serialized(), as: UTF8.self))
    }
}
