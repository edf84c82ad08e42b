import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

@testable import BrokerDrivers

/// `broker migrate-sqlite`'s copy: a SQLite store filled through the store API answers the same look-ups
/// once copied into PostgreSQL; a copy into a database that is not empty is refused and changes nothing.
@Suite("SQLite to PostgreSQL", .enabled(if: StoreBackend.postgresURL != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresMigrateSQLiteTests {
    static let t0 = date(ms: 1_800_000_000_123)

    static let alice = Account(
        id: AccountID("aLiCe0001"), email: "Alice@Example.com", emailVerified: true, displayName: "Alice 👩‍💻",
        photoURL: "https://example.com/a.png", createdAt: t0, lastSignInAt: t0 + 5,
        identities: [
            Identity(provider: ProviderID("google"), subject: "g-1", email: "alice@example.com", linkedAt: t0),
            Identity(provider: ProviderID("apple"), subject: "a-1", email: nil, linkedAt: t0 + 1),
        ],
        password: .chosen("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"), customClaims: #"{"role":"admin"}"#)
    static let bob = Account(
        id: AccountID("Bob0002"), email: "bob@kakao.example", displayName: "", disabled: true, createdAt: t0 + 10,
        identities: [Identity(provider: ProviderID("kakao"), subject: "4100000001", email: nil, linkedAt: t0 + 10)],
        password: PasswordCredential(hash: "$argon2id$derived", isDerived: true))

    /// Fills a SQLite store through its API: accounts, identities, a single-use mark, sessions, signing keys,
    /// audit events and login failures.
    static func populate(_ store: SQLBrokerStore) async throws {
        try await store.create(alice, options: AccountWriteOptions(consuming: SingleUseMark(key: "apple-hash", expiresAt: t0 + 600)))
        try await store.create(bob)
        for index in 0..<(SQLiteToPostgres.batchSize + 7) {  // more than one batch
            try await store.create(
                Account(id: AccountID(String(format: "bulk%04d", index)), email: "bulk\(index)@example.com", createdAt: t0 + 20))
        }
        let token = RefreshTokenRecord(
            tokenHash: "hash-1", sessionID: "s-1", accountID: alice.id, signInProvider: "google", createdAt: t0,
            expiresAt: t0 + 86_400)
        try await store.insertRefreshToken(token)
        var successor = token
        successor.tokenHash = "hash-2"
        #expect(try await store.rotateRefreshToken(hash: "hash-1", at: t0 + 2, successor: successor))
        try await store.insertSigningKey(
            StoredSigningKey(id: "k-1", algorithm: "ES256", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nA\n-----END PRIVATE KEY-----\n", createdAt: t0))
        try await store.retireSigningKey(id: "k-1", at: t0 + 3)
        try await store.insertSigningKey(
            StoredSigningKey(id: "k-2", algorithm: "ES256", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nB\n-----END PRIVATE KEY-----\n", createdAt: t0 + 3))
        try await store.appendAuditEvent(
            AuditEvent(time: t0, uid: alice.id, action: AuditAction(rawValue: "signin"), provider: "google", actor: .user, requestID: "r-1"))
        try await store.appendAuditEvent(
            AuditEvent(time: t0 + 1, uid: bob.id, action: .disable, actor: .admin, requestID: "r-2"))
        #expect(try await store.reserveLoginAttempt(emailKey: "alice@example.com", at: t0 + 4, window: 900, limit: 10) == nil)
        // More than one batch of the audit log, which has no rowid since schema version 22: copied in the order of
        // its primary key (at, id), three events to each millisecond so that a batch ends inside one.
        for index in 0..<(SQLiteToPostgres.batchSize + 7) {
            try await store.appendAuditEvent(
                AuditEvent(
                    time: t0 + 10 + Double(index / 3) / 1000, uid: bob.id, action: .signIn, provider: "google",
                    actor: .user, requestID: "bulk", id: String(format: "bulk%04d", index), origin: nil))
        }
    }

    /// A SQLite file filled by ``populate(_:)``, and a fresh PostgreSQL schema; both removed afterwards.
    func withSourceAndTarget(_ body: (String, PostgresTestSchema) async throws -> Void) async throws {
        let directory = try makeTemporaryDirectory()
        let path = directory.appendingPathComponent("broker.sqlite").path
        let schema = try await PostgresTestSchema.create()
        do {
            let sqlite = try await SQLiteDatabase.open(path: path)
            try await Self.populate(try await SQLBrokerStore(database: sqlite))
            await sqlite.close()
            try await body(path, schema)
        } catch {
            await schema.drop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await schema.drop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func aCopiedDatabaseAnswersTheSameLookUps() async throws {
        try await withSourceAndTarget { path, schema in
            let target = try PostgresDatabase(url: schema.url)
            let report = try await SQLiteToPostgres.copy(from: path, to: target)
            let counts = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.name, $0.rows) })
            #expect(counts["accounts"] == 2 + SQLiteToPostgres.batchSize + 7)
            #expect(counts["identities"] == 3)
            #expect(counts["refresh_tokens"] == 2)
            #expect(counts["used_marks"] == 1)
            #expect(counts["signing_keys"] == 2)
            #expect(counts["audit_events"] == 2 + SQLiteToPostgres.batchSize + 7)
            #expect(counts["password_failures"] == 1)
            #expect(counts["schema_migrations"] == nil)
            let names = report.tables.map(\.name)
            #expect(try #require(names.firstIndex(of: "accounts")) < #require(names.firstIndex(of: "identities")))

            let sqlite = try await SQLiteDatabase.open(path: path)
            let source = try await SQLBrokerStore(database: sqlite)
            let copy = try await SQLBrokerStore(database: target)
            #expect(try await copy.account(id: Self.alice.id) == Self.alice)
            #expect(try await copy.account(id: Self.bob.id) == Self.bob)
            #expect(try await copy.account(provider: ProviderID("apple"), subject: "a-1") == Self.alice)
            #expect(try await copy.account(email: "ALICE@example.com") == Self.alice)
            #expect(try await copy.account(id: AccountID("bulk0203")) == source.account(id: AccountID("bulk0203")))
            #expect(try await copy.refreshToken(hash: "hash-1") == source.refreshToken(hash: "hash-1"))
            #expect(try await copy.refreshToken(hash: "hash-2") == source.refreshToken(hash: "hash-2"))
            #expect(try await copy.signingKeys() == source.signingKeys())
            let everyone = try await copy.listAccounts(filter: AccountFilter(), after: nil, limit: 500)
            #expect(everyone == (try await source.listAccounts(filter: AccountFilter(), after: nil, limit: 500)))
            #expect(try await copy.auditEvents(uid: nil, before: nil, limit: 10) == source.auditEvents(uid: nil, before: nil, limit: 10))
            let log = try await source.auditEvents(uid: nil, before: nil, limit: 500)
            #expect(log.count == 2 + SQLiteToPostgres.batchSize + 7)
            #expect(try await copy.auditEvents(uid: nil, before: nil, limit: 500) == log)
            #expect(try await copy.loginFailures(emailKey: "alice@example.com", since: Self.t0) == [Self.t0 + 4])
            // The single-use mark came along: the Apple token stays spent.
            await expectStoreError(.alreadyUsed) {
                _ = try await copy.update(
                    id: Self.alice.id, options: AccountWriteOptions(consuming: SingleUseMark(key: "apple-hash", expiresAt: Self.t0 + 600))
                ) { _ in }
            }
            // And the copy is a working store: the email and identities stay unique.
            await expectStoreError(.alreadyExists) {
                try await copy.create(Account(id: AccountID("mallory"), email: "alice@EXAMPLE.com", createdAt: Self.t0))
            }
            await sqlite.close()
            await target.close()
        }
    }

    @Test func aTargetThatHoldsDataIsRefusedAndKeepsIt() async throws {
        try await withSourceAndTarget { path, schema in
            let target = try PostgresDatabase(url: schema.url)
            let existing = try await SQLBrokerStore(database: target)
            try await existing.insertSigningKey(
                StoredSigningKey(id: "k-pg", algorithm: "ES256", privateKeyPEM: "pem", createdAt: Self.t0))

            let error = await #expect(throws: SQLiteToPostgres.Refusal.self) {
                _ = try await SQLiteToPostgres.copy(from: path, to: target)
            }
            #expect(error?.description.contains("signing_keys") == true, "\(String(describing: error))")
            #expect(try await existing.account(id: Self.alice.id) == nil)
            #expect(try await existing.listAccounts(filter: AccountFilter(), after: nil, limit: 10).isEmpty)
            #expect(try await existing.signingKeys().map(\.id) == ["k-pg"])
            await target.close()
        }
    }

    @Test func aMissingFileIsRefusedAndNotCreated() async throws {
        let schema = try await PostgresTestSchema.create()
        let target = try PostgresDatabase(url: schema.url)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).sqlite").path
        await #expect(throws: SQLiteToPostgres.Refusal.self) { _ = try await SQLiteToPostgres.copy(from: path, to: target) }
        #expect(!FileManager.default.fileExists(atPath: path))
        await target.close()
        await schema.drop()
    }
}
