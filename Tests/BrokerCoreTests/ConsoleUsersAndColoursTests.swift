import BrokerCore
import BrokerModel
import Foundation
import Testing

/// What the console's Users page and dashboard show (issue 58): a password account's sign-in methods say
/// `password`, as the CLI's PROVIDERS column does, and no two dashboard series share a colour.
@Suite struct ConsoleUsersAndColoursTests {
    static let console = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/BrokerHTTP/Admin/Console")

    /// The admin user object names how the account signs in, `password` included; the Users page shows that list.
    @Test func theAdminUserObjectNamesEverySignInMethod() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let password = Account(
            id: AccountID("u-1"), email: "kim@example.com", createdAt: now, password: .chosen("hash"))
        #expect(password.adminJSON["signInMethods"] == ["password"])
        let both = Account(
            id: AccountID("u-2"), email: "lee@example.com", createdAt: now,
            identities: [Identity(provider: ProviderID("kakao"), subject: "41", email: nil, linkedAt: now)],
            password: .chosen("hash"))
        #expect(both.adminJSON["signInMethods"] == ["kakao", "password"])
        // A password derived from a provider id (the Kakao workaround's) is no way to sign in.
        let derived = Account(
            id: AccountID("u-3"), createdAt: now, password: PasswordCredential(hash: "hash", isDerived: true))
        #expect(derived.adminJSON["signInMethods"] == [])
        let users = try String(contentsOf: Self.console.appendingPathComponent("users.js"), encoding: .utf8)
        #expect(users.contains("(user.signInMethods || []).join(', ')"))
        #expect(!users.contains("identity.provider).join"))
    }

    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The dashboard's series colours, computed by the console's own colours.js: 60 series, 60 colours.
    @Test(.enabled(if: node != nil, "node is not installed (apt-get install nodejs): colours.js runs in it"))
    func everySeriesHasAColourOfItsOwn() throws {
        let module = Self.console.appendingPathComponent("colours.js").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.node))
        process.arguments = [
            "--input-type=module", "-e",
            "import { seriesColour } from '\(module)'; "
                + "console.log(JSON.stringify([...Array(60).keys()].map(seriesColour)))",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let colours = try #require(JSONValue.parse(Array(data))?.arrayValue).compactMap(\.stringValue)
        #expect(colours.count == 60)
        #expect(Set(colours).count == 60, "\(colours)")
        let dashboard = try String(contentsOf: Self.console.appendingPathComponent("dashboard.js"), encoding: .utf8)
        #expect(dashboard.contains("seriesColour(keyIndex)") && dashboard.contains("seriesColour(index)"))
        #expect(!dashboard.contains("% palette.length"))
    }
}
