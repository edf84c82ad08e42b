import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@testable import BrokerAuth

/// The session BrokerAuth keeps: restored at launch, refreshed once however many ask, revocation reported, and
/// the refresh token written to the storage alone.
@Suite struct SessionTests {
    @Test func aNewInstanceOnTheSameStorageIsSignedInAtOnce() async throws {
        try await withLiveBroker { broker in
            let directory = try LiveBroker.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("nested/session.json")
            let first = broker.client(.file(file))
            let result = try await first.signIn(
                with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-4"])))

            // A new launch: the user is there synchronously, before any network call.
            let launched = broker.client(.file(file))
            #expect(launched.currentUser == result.user)
            #expect(launched.customToken == nil)
            let refreshesBefore = broker.refreshes
            let idToken = try await launched.idToken()  // no ID token in memory yet: one refresh
            #expect(broker.refreshes == refreshesBefore + 1)
            #expect(try await broker.me(idToken) == (200, result.user.uid))
            #expect(launched.customToken != nil)
            // Another storage knows nothing of it.
            #expect(broker.client(.memory).currentUser == nil)
            // One `.memory` value shared by two instances is one store.
            let shared = SessionStorage.memory
            try await broker.client(shared).signUp(email: "shared@example.com", password: "secret-enough")
            #expect(broker.client(shared).currentUser?.email == "shared@example.com")
        }
    }

    @Test func fiftyConcurrentCallsNearExpiryMakeOneRefresh() async throws {
        try await withLiveBroker { broker in
            let clock = TestClock()
            let auth = broker.client(clock: clock)
            let result = try await auth.signIn(
                with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-5"])))
            let first = try await auth.idToken()
            #expect(broker.refreshes == 0)  // an hour left: the token in memory
            #expect(try await broker.count("refresh_tokens") == 1)

            clock.advance(3600 - 50)  // under a minute left
            let changes = auth.sessionChanges
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 { group.addTask { try await auth.idToken() } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(tokens.count == 50)
            #expect(Set(tokens).count == 1)
            #expect(tokens.first != first)
            #expect(broker.refreshes == 1)
            #expect(try await broker.count("refresh_tokens") == 2)  // one rotation: the token and its successor
            #expect(try await broker.me(try #require(tokens.first)).uid == result.user.uid)
            // The fresh token has an hour again: no more refreshes.
            _ = try await auth.idToken()
            #expect(broker.refreshes == 1)
            // One change reported between the sign-in and the sign-out: the refresh.
            try await auth.signOut()
            let reported = await take(2, from: changes)
            #expect(reported.count == 2)
            if case .refreshed(let user) = reported.first {
                #expect(user.uid == result.user.uid)
            } else {
                Issue.record("not a refresh first: \(reported)")
            }
            #expect(reported.last == .signedOut)
        }
    }

    @Test func aRevokedSessionIsReportedAndForgotten() async throws {
        try await withLiveBroker { broker in
            let directory = try LiveBroker.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("session.json")
            let auth = broker.client(.file(file))
            let result = try await auth.signIn(
                with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-6"])))
            let changes = auth.sessionChanges
            let revoke = try await broker.post(
                "/admin/v1/users/\(result.user.uid)/revoke-sessions", [:],
                headers: ["Authorization": "Bearer " + LiveBroker.adminToken])
            #expect(revoke.status == 200 || revoke.status == 204)
            // The ID token in memory is refused now (revocation is exact): one refresh, refused, signed out.
            await #expect(throws: BrokerAuthError.invalidRefreshToken) { try await auth.reloadUser() }
            #expect(await take(1, from: changes) == [.revoked])
            #expect(auth.currentUser == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(broker.client(.file(file)).currentUser == nil)
            await #expect(throws: BrokerAuthError.notSignedIn) { try await auth.idToken() }
        }
    }

    @Test func aDisabledAccountsRefreshSignsOutAsRevoked() async throws {
        try await withLiveBroker { broker in
            let auth = broker.client()
            let result = try await auth.signIn(
                with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-7"])))
            let changes = auth.sessionChanges
            let disable = try await broker.request(
                "PATCH", "/admin/v1/users/\(result.user.uid)", json: ["disabled": true],
                headers: ["Authorization": "Bearer " + LiveBroker.adminToken])
            #expect(disable.status == 200)
            await #expect(throws: BrokerAuthError.userDisabled) { try await auth.idToken(forceRefresh: true) }
            #expect(await take(1, from: changes) == [.revoked])
            #expect(auth.currentUser == nil)
        }
    }

    @Test func anUnreachableBrokerKeepsTheSession() async throws {
        let directory = try LiveBroker.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("session.json")
        let (url, user) = try await withLiveBroker { broker in
            let result = try await broker.client(.file(file)).signIn(
                with: .google(idToken: try broker.stubs.idToken("google", claims: ["sub": "g-8"])))
            return (broker.url, result.user)
        }
        // The broker is gone: a refresh fails for a network reason, and the user stays signed in.
        let auth = BrokerAuth(baseURL: url, storage: .file(file))
        #expect(auth.currentUser == user)
        await #expect {
            try await auth.idToken()
        } throws: { error in
            guard case .network = error as? BrokerAuthError else { return false }
            return true
        }
        #expect(auth.currentUser == user)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func theRefreshTokenIsWrittenToTheStorageAndNowhereElse() async throws {
        let started = Date()
        try await withLiveBroker { broker in
            let directory = try LiveBroker.directory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("session.json")
            let auth = broker.client(.file(file))
            try await auth.signUp(email: "quiet@example.com", password: "secret-enough")
            let issued = try #require(SessionKeeper.restore(from: FileVault(url: file))?.refreshToken)
            _ = try await auth.idToken(forceRefresh: true)
            let current = try #require(SessionKeeper.restore(from: FileVault(url: file))?.refreshToken)
            #expect(current != issued)

            // The session file: 0600, alone in its directory (no temporary file left), holding the current token.
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["session.json"])
            #expect(try String(contentsOf: file, encoding: .utf8).contains(current))

            // Nowhere else: no file written since the test began in the temporary directory (the broker's database
            // among them), the working directory, the home directory and its caches and settings, nor the logs.
            let home = FileManager.default.homeDirectoryForCurrentUser
            let trees =
                [
                    FileManager.default.temporaryDirectory,
                    URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                ]
                + [".cache", ".config", ".local", "Library"].map { home.appendingPathComponent($0) }
            let topLevel =
                (try? FileManager.default.contentsOfDirectory(at: home, includingPropertiesForKeys: nil)) ?? []
            var scanned = 0
            for found in trees.flatMap({ Self.files(under: $0, modifiedSince: started) })
                + topLevel.filter({ Self.isFile($0, modifiedSince: started) })
            where found.standardizedFileURL != file.standardizedFileURL {
                scanned += 1
                guard let data = try? Data(contentsOf: found, options: .alwaysMapped) else { continue }
                for token in [issued, current] {
                    #expect(data.range(of: Data(token.utf8)) == nil, "\(found.path) holds a refresh token")
                }
            }
            #expect(scanned > 0)  // the broker's database at least
            let logs = broker.logs.lines.joined(separator: "\n")
            #expect(!logs.contains(issued) && !logs.contains(current))
        }
    }

    static let keys: [URLResourceKey] = [.isRegularFileKey, .contentModificationDateKey, .fileSizeKey]

    /// Regular files under `root` modified at or after `date`, skipping build directories and files over 64 MiB.
    static func files(under root: URL, modifiedSince date: Date) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            if [".build", ".git"].contains(url.lastPathComponent) {
                walker.skipDescendants()
                continue
            }
            if isFile(url, modifiedSince: date) { found.append(url) }
        }
        return found
    }

    /// Whether `url` is a regular file under 64 MiB modified at or after `date`.
    static func isFile(_ url: URL, modifiedSince date: Date) -> Bool {
        guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
            let modified = values.contentModificationDate
        else { return false }
        return modified >= date.addingTimeInterval(-1) && (values.fileSize ?? 0) < 64 << 20
    }
}
