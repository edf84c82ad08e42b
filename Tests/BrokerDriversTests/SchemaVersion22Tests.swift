import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Schema version 22 (issue 35) rebuilds the audit log in `(at, id)` order, on SQLite as a `WITHOUT ROWID` table: a
/// database of version 21 with audit events and refresh tokens keeps every row, and every reader and writer of them
/// works on the migrated tables.
@Suite("Schema version 22: the audit log in time order, migrated with its rows")
struct SchemaVersion22Tests {
    static let t0: Int64 = 1_800_000_000_000

    /// The backends with a database file or server to migrate: SQLite's file, and PostgreSQL when it is configured.
    static var backends: [StoreBackend] { StoreBackend.enabled.filter { $0 == .sqliteFile || $0 == .postgres } }

    @Test(arguments: backends)
    func aVersion21DatabaseKeepsItsRowsAndItsReaders(backend: StoreBackend) async throws {
        try await withVersion21Database(backend) { database in
            try await Self.writeVersion21Rows(database)
            let clock = ManualClock(date(ms: Self.t0 + 60_000))
            let store = try await SQLBrokerStore(database: database, clock: clock)
            let versions = try await database.read { connection in
                try connection.query("SELECT MAX(version) AS v FROM schema_migrations", []).first?.integer("v")
            }
            #expect(versions == 22)

            // The refresh tokens, every column kept.
            let first = RefreshTokenRecord(
                tokenHash: "h-1", sessionID: "s-1", accountID: AccountID("u-1"), signInProvider: "google",
                createdAt: date(ms: Self.t0), expiresAt: date(ms: Self.t0 + 86_400_000), surface: .native,
                claims: #"{"role":"admin"}"#, authTime: date(ms: Self.t0 - 1_000))
            let second = RefreshTokenRecord(
                tokenHash: "h-2", sessionID: "s-2", accountID: AccountID("u-1"), signInProvider: "apple",
                createdAt: date(ms: Self.t0 + 1), expiresAt: date(ms: Self.t0 + 86_400_000),
                rotatedAt: date(ms: Self.t0 + 5), revokedAt: date(ms: Self.t0 + 6),
                surface: SessionSurface(rawValue: "firebase"), authTime: date(ms: Self.t0 + 1),
                usedAt: date(ms: Self.t0 + 4))
            #expect(try await store.refreshToken(hash: "h-1") == first)
            #expect(try await store.refreshToken(hash: "h-2") == second)
            #expect(try await store.isSessionLive(id: "s-1", accountID: AccountID("u-1"), at: clock.now))
            #expect(try await !store.isSessionLive(id: "s-2", accountID: AccountID("u-1"), at: clock.now))

            // The audit log, newest first with ties broken by id, by account, by page, and counted by the chart.
            let all = try await store.auditEvents(uid: nil, before: nil, limit: 10)
            #expect(all.map(\.id) == ["0003", "0002", "0001"])
            #expect(
                all.first
                    == AuditEvent(
                        time: date(ms: Self.t0 + 10), uid: AccountID("u-1"), action: .signIn, provider: "google",
                        actor: .user, outcome: "success", requestID: "r-3", id: "0003",
                        origin: RequestOrigin(clientAddress: "203.0.113.7", userAgent: "UA/1")))
            #expect(
                try await store.auditEvents(uid: AccountID("u-1"), before: nil, limit: 10).map(\.id) == [
                    "0003", "0001",
                ])
            let page = try await store.auditEvents(
                uid: nil, before: PageCursor(millis: Self.t0 + 10, id: "0003"), limit: 10)
            #expect(page.map(\.id) == ["0002", "0001"])
            let counts = try await store.signInCounts(
                from: date(ms: Self.t0), to: date(ms: Self.t0 + 60_000), bucketMilliseconds: 60_000)
            #expect(
                counts.map { "\($0.provider):\($0.outcome):\($0.count)" } == ["apple:failure:1", "google:success:1"])

            // The log as rebuilt: its own time index and the chart's index are gone, and on SQLite it lives in its
            // primary key's B-tree alone; the refresh tokens keep their table and indexes.
            #expect(try await Self.indexes(of: "audit_events", in: database) == Self.expectedAuditIndexes(backend))
            #expect(try await Self.indexes(of: "refresh_tokens", in: database) == Self.expectedTokenIndexes(backend))
            if backend == .sqliteFile {
                let sql = try await database.read { connection in
                    try connection.query("SELECT sql FROM sqlite_master WHERE name = 'audit_events'", [])
                        .first?.text("sql")
                }
                #expect(sql?.hasSuffix("WITHOUT ROWID") == true)
            }

            // Writing to the migrated tables: a new event, a rotation within a session, the session's revocation.
            try await store.appendAuditEvent(
                AuditEvent(
                    time: date(ms: Self.t0 + 20), uid: AccountID("u-1"), action: .signIn, provider: "google",
                    actor: .user, requestID: "r-4", id: "0004", origin: nil))
            #expect(try await store.auditEvents(uid: nil, before: nil, limit: 1).map(\.id) == ["0004"])
            var successor = first
            successor.tokenHash = "h-3"
            #expect(try await store.rotateRefreshToken(hash: "h-1", at: clock.now, successor: successor))
            try await store.revokeSession(id: "s-1", at: clock.now)
            #expect(try await store.refreshToken(hash: "h-1")?.revokedAt == clock.now)
            #expect(try await store.refreshToken(hash: "h-3")?.revokedAt == clock.now)
            #expect(try await !store.isSessionLive(id: "s-1", accountID: AccountID("u-1"), at: clock.now))
        }
    }

    static func expectedAuditIndexes(_ backend: StoreBackend) -> [String] {
        backend == .postgres ? ["audit_events_pkey", "audit_events_uid"] : ["audit_events_uid"]
    }

    static func expectedTokenIndexes(_ backend: StoreBackend) -> [String] {
        (backend == .postgres ? ["refresh_tokens_pkey"] : []) + ["refresh_tokens_session_id", "refresh_tokens_uid"]
    }

    /// The named indexes of `table` (on SQLite, those a statement made; its primary key's is implicit).
    static func indexes(of table: String, in database: any SQLDatabase) async throws -> [String] {
        let sql =
            database.dialect == .postgres
            ? "SELECT indexname AS name FROM pg_indexes WHERE tablename = ? AND schemaname = current_schema() "
                + "ORDER BY indexname"
            : "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name"
        return try await database.read { connection in
            try connection.query(sql, [.text(table)]).compactMap { $0.text("name") }
        }
    }

    /// Rows written as a broker of schema version 21 wrote them: two refresh tokens (one rotated, revoked and
    /// used, of the compatibility listener), three audit events (two at the same millisecond).
    static func writeVersion21Rows(_ database: any SQLDatabase) async throws {
        let expires = SQLValue.integer(t0 + 86_400_000)
        _ = try await database.write { connection in
            let tokens = """
                INSERT INTO refresh_tokens (token_hash, session_id, uid, sign_in_provider, created_at, expires_at, \
                rotated_at, revoked_at, surface, claims, auth_time, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            try connection.execute(
                tokens,
                [
                    .text("h-1"), .text("s-1"), .text("u-1"), .text("google"), .integer(t0), expires, .null, .null,
                    .text("native"), .text(#"{"role":"admin"}"#), .integer(t0 - 1_000), .null,
                ])
            try connection.execute(
                tokens,
                [
                    .text("h-2"), .text("s-2"), .text("u-1"), .text("apple"), .integer(t0 + 1), expires,
                    .integer(t0 + 5), .integer(t0 + 6), .text("firebase"), .null, .integer(t0 + 1), .integer(t0 + 4),
                ])
            let events = """
                INSERT INTO audit_events (id, at, uid, action, provider, actor, outcome, request_id, client_address, \
                user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            try connection.execute(
                events,
                [
                    .text("0003"), .integer(t0 + 10), .text("u-1"), .text("sign_in"), .text("google"), .text("user"),
                    .text("success"), .text("r-3"), .text("203.0.113.7"), .text("UA/1"),
                ])
            try connection.execute(
                events,
                [
                    .text("0001"), .integer(t0), .text("u-1"), .text("sign_up"), .text("google"), .text("user"),
                    .text("created"), .text("r-1"), .null, .null,
                ])
            try connection.execute(
                events,
                [
                    .text("0002"), .integer(t0 + 10), .null, .text("sign_in"), .text("apple"), .text("user"),
                    .text("failure"), .text("r-2"), .null, .null,
                ])
        }
    }

    /// Runs `body` on a new database of `backend` migrated to version 21, then closes and removes it.
    func withVersion21Database(
        _ backend: StoreBackend, _ body: (any SQLDatabase) async throws -> Void
    ) async throws {
        let version21 = { (dialect: SQLDialect) in BrokerSchema.migrations(for: dialect).filter { $0.version <= 21 } }
        if backend == .postgres {
            let schema = try await PostgresTestSchema.create(in: backend.baseURL)
            do {
                let database = try PostgresDatabase(url: schema.url)
                try await database.migrate(version21(.postgres))
                try await body(database)
                await database.close()
            } catch {
                await schema.drop()
                throw error
            }
            await schema.drop()
            return
        }
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await SQLiteDatabase.open(path: directory.appendingPathComponent("broker.sqlite").path)
        do {
            try await database.migrate(version21(.sqlite))
            try await body(database)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
