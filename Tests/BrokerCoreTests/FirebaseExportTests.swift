import BrokerCore
import BrokerFirebase
import BrokerModel
import Foundation
import Testing

@Suite struct FirebaseExportTests {
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    }

    static func malformed(_ text: String) throws -> FirebaseExportError {
        do {
            _ = try FirebaseExport(data: Data(text.utf8))
        } catch let error as FirebaseExportError {
            return error
        }
        throw FirebaseExportError(.unreadable, "the file was accepted")
    }

    @Test func readsARealExportsShape() throws {
        let export = try FirebaseExport(contentsOf: Self.fixture("firebase-export.json"))
        #expect(export.count == 4)

        let first = try export.user(at: 0)
        #expect(first.localId == "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
        #expect(first.email == "user1@test.com")
        #expect(first.emailVerified == false)
        #expect(first.passwordHash?.count == 64)
        #expect(first.salt == FirebaseBase64.decode("42xEC+ixf3L2lw=="))
        #expect(first.createdAt == Date(timeIntervalSince1970: 1_508_893_925))
        #expect(first.providerUserInfo == [
            FirebaseProviderUserInfo(providerId: "password", rawId: "user1@test.com", email: "user1@test.com", displayName: "Test User 1")
        ])
        #expect(first.notes.isEmpty)

        let second = try export.user(at: 1)
        #expect(second.email == "Jane.Doe@Example.com")
        #expect(second.emailVerified)
        #expect(second.photoURL == "https://lh3.googleusercontent.com/a/photo.jpg")
        #expect(second.createdAt == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(second.lastSignedInAt == Date(timeIntervalSince1970: 1_700_000_000.123))
        let claims = try #require(second.customAttributes.flatMap { JSONValue.parse(Array($0.utf8)) })
        #expect(claims == .object(["role": "admin", "tier": 3]))
        #expect(second.providerUserInfo.map(\.providerId) == ["google.com", "apple.com"])
        #expect(second.providerUserInfo[0].rawId == "109876543210987654321")
        #expect(second.providerUserInfo[1].photoURL == nil)

        // URL-safe unpadded base64, a dropped data: photo, an unknown field noted, not refused.
        let third = try export.user(at: 2)
        #expect(third.passwordHash?.count == 64)
        #expect(third.salt == Array(0..<16))
        #expect(third.photoURL == nil)
        #expect(third.disabled)
        #expect(third.providerUserInfo == [FirebaseProviderUserInfo(providerId: "oidc.kakao", rawId: "1234567890")])
        #expect(third.notes == [
            "ignored field mfaInfo", "dropped photoUrl (not an http(s) URL)",
            "dropped providerUserInfo[0].photoUrl (not an http(s) URL)",
        ])

        let fourth = try export.user(at: 3)
        #expect(fourth == FirebaseUserRecord(localId: "minimal-é-user"))
    }

    /// Each bad record is refused on its own, with a code naming what is wrong.
    @Test func badRecordsAreRefusedOneByOne() throws {
        let export = try FirebaseExport(contentsOf: Self.fixture("firebase-export-bad-records.json"))
        let expected: [FirebaseUserError.Code] = [
            .invalidLocalId, .invalidLocalId, .invalidLocalId, .invalidEmail, .invalidBase64, .invalidBase64,
            .invalidTime, .invalidTime, .invalidCustomAttributes, .invalidCustomAttributes, .invalidCustomAttributes,
            .invalidProviderUserInfo, .invalidProviderUserInfo, .invalidField, .invalidLocalId, .invalidRecord,
            .invalidProviderUserInfo, .invalidLocalId, .invalidTime,
        ]
        #expect(export.count == expected.count)
        for (index, code) in expected.enumerated() {
            do {
                let user = try export.user(at: index)
                Issue.record("user \(index) accepted as \(user.localId)")
            } catch let error as FirebaseUserError {
                #expect(error.code == code, "user \(index): \(error)")
                #expect(!error.detail.contains("someone-else") && !error.detail.contains("not base64"))
            }
        }
    }

    @Test func aMalformedFileIsRefusedWithItsLineAndColumn() throws {
        do {
            _ = try FirebaseExport(contentsOf: Self.fixture("firebase-export-trailing-comma.json"))
            Issue.record("accepted a trailing comma")
        } catch let error as FirebaseExportError {
            #expect(error.code == .malformedFile)
            #expect(error.line == 5)
            #expect(error.column == 3)
            #expect(error.description == "MALFORMED_FILE: line 5, column 3: expected a value")
        }
    }

    @Test func aFileWithoutUsersIsNotAnExport() throws {
        do {
            _ = try FirebaseExport(contentsOf: Self.fixture("firebase-export-no-users.json"))
            Issue.record("accepted a file without users")
        } catch let error as FirebaseExportError {
            #expect(error.code == .notAnExport)
        }
        #expect(try Self.malformed("[1, 2]").code == .malformedFile)
        #expect(try Self.malformed(#"{"users": {"a": 1}}"#).code == .malformedFile)
        #expect(try Self.malformed(#"{"users": [], "users": []}"#).code == .malformedFile)
        do {
            _ = try FirebaseExport(contentsOf: Self.fixture("does-not-exist.json"))
            Issue.record("read a missing file")
        } catch let error as FirebaseExportError {
            #expect(error.code == .unreadable)
        }
    }

    /// Problems anywhere, in or out of a user, stop the file at their position (line, column).
    @Test(arguments: [
        ("", 1, 1),
        ("{\"users\": [\n  {\"localId\": \"a\"}\n", 3, 1),  // unexpected end
        ("{\"users\": [\n  {\"localId\": \"a\"}\n]} x", 3, 4),
        ("{\"users\": [{\"localId\": \"a\u{01}\"}]}", 1, 26),  // a raw control character
        ("{\"users\": [{\"localId\": \"\\x\"}]}", 1, 26),  // an invalid escape
        ("{\"users\": [{\"localId\": \"\\ud800\"}]}", 1, 31),  // an unpaired surrogate
        ("{\"users\": [{\"localId\": \"\\u0000\"}]}", 1, 31),
        ("{\"users\": [{\"n\": 01}]}", 1, 19),
        ("{\"users\": [{\"n\": 1.}]}", 1, 20),
        ("{\"users\": [{\"n\": tru}]}", 1, 18),
        ("{\"users\": [{\"a\" 1}]}", 1, 17),
        ("{\"users\": [{\"é\": [1 2]}]}", 1, 21),  // columns count characters, not bytes
        ("{\"top\": 1, \"users\": [], \"more\": {\"x\": [true, false, null]}}\n\n  ,", 3, 3),
    ])
    func malformedFilesNameTheirLineAndColumn(text: String, line: Int, column: Int) throws {
        let error = try Self.malformed(text)
        #expect(error.code == .malformedFile)
        #expect(error.line == line)
        #expect(error.column == column)
    }

    @Test func invalidUTF8AndDeepNestingAreRefused() throws {
        let prefix = Array(#"{"users": [{"localId": ""#.utf8)
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let bytes = prefix + bad + Array(#""}]}"#.utf8)
            #expect(throws: FirebaseExportError.self) { try FirebaseExport(data: Data(bytes)) }
        }
        let valid = prefix + Array("한국어 ✓ 🙂".utf8) + Array(#""}]}"#.utf8)
        #expect(try FirebaseExport(data: Data(valid)).user(at: 0).localId == "한국어 ✓ 🙂")

        // The element parser allows 32 levels; the file adds two (the root object and the users array).
        let deepest = #"{"users": [{"a": "# + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "}]}"
        let export = try FirebaseExport(data: Data(deepest.utf8))
        #expect(throws: FirebaseUserError.self) { try export.user(at: 0) }  // parsed, then refused for no localId
        let tooDeep = #"{"users": [{"a": "# + String(repeating: "[", count: 33) + String(repeating: "]", count: 33) + "}]}"
        #expect(try Self.malformed(tooDeep).code == .malformedFile)
    }

    /// Many users are found without building a tree of the file, and a UTF-8 byte order mark is skipped.
    @Test func manyUsersAreIndexedByRange() throws {
        var text = "\u{FEFF}{\"users\": ["
        for index in 0..<5000 {
            if index > 0 { text += ",\n" }
            text += #"{"localId": "user-\#(index)", "email": "user\#(index)@example.com", "createdAt": \#(index)}"#
        }
        text += "]}"
        let export = try FirebaseExport(data: Data(text.utf8))
        #expect(export.count == 5000)
        #expect(try export.user(at: 4999).localId == "user-4999")
        #expect(try export.user(at: 4999).createdAt == Date(timeIntervalSince1970: 4.999))
        #expect(try export.user(at: 0).email == "user0@example.com")
    }

    @Test(arguments: [
        ("https://example.com/a.png", true), ("HTTP://example.com", true), ("http://127.0.0.1:8080/x", true),
        ("ftp://example.com/a.png", false), ("data:image/png;base64,AAAA", false), ("//example.com/a", false),
        ("https://", false), ("https://exa mple.com", false), ("javascript:alert(1)", false), ("", false),
    ])
    func onlyWebPhotoURLsAreKept(url: String, kept: Bool) throws {
        let record = try FirebaseUserRecord(json: .object(["localId": "u", "photoUrl": .string(url)]))
        #expect((record.photoURL != nil) == kept)
        #expect(record.notes.isEmpty == (kept || url.isEmpty))
    }
}
