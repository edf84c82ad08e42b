import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// What only a file database can show: the store's data survives closing and reopening it.
@Suite("SQLBrokerStore on a SQLite file")
struct SQLiteStoreDurabilityTests {
    @Test func dataSurvivesReopeningTheFile() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("broker.sqlite").path

        let account = Account(
            id: AccountID("durable"), email: "durable@example.com", emailVerified: true, createdAt: date(ms: 1_754_000_000_001),
            identities: [Identity(provider: ProviderID("google"), subject: "g-1", email: nil, linkedAt: date(ms: 1_754_000_000_002))])
        let token = RefreshTokenRecord(
            tokenHash: "h-1", sessionID: "s-1", accountID: account.id, signInProvider: "google",
            createdAt: date(ms: 1_754_000_000_003), expiresAt: date(ms: 1_756_000_000_000))
        let key = StoredSigningKey(id: "k-1", algorithm: "ES256", privateKeyPEM: "pem", createdAt: date(ms: 1_754_000_000_004))
        let mark = SingleUseMark(key: "m-1", expiresAt: Date() + 3600)

        do {
            let database = try await SQLiteDatabase.open(path: path)
            let store = try await SQLBrokerStore(database: database)
            try await store.create(account, options: AccountWriteOptions(consuming: mark))
            try await store.insertRefreshToken(token)
            try await store.insertSigningKey(key)
            await database.close()
        }

        let database = try await SQLiteDatabase.open(path: path)
        let store = try await SQLBrokerStore(database: database)
        #expect(try await store.account(id: account.id) == account)
        #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == account)
        #expect(try await store.refreshToken(hash: "h-1") == token)
        #expect(try await store.signingKeys() == [key])
        // The single-use mark was kept too.
        let error = await #expect(throws: AccountStoreError.self) {
            _ = try await store.update(id: account.id, options: AccountWriteOptions(consuming: mark)) { _ in }
        }
        #expect(error?.code == .alreadyUsed)
        // Reopening did not re-run the schema.
        let versions = try await database.read { try $0.query("SELECT version FROM schema_migrations", []) }
        #expect(versions.count == BrokerSchema.migrations(for: .sqlite).count)
        await database.close()
    }

    @Test func storeOverAMissingDirectoryIsUnavailable() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("missing/broker.sqlite").path
        let error = await #expect(throws: SQLError.self) {
            _ = try await SQLBrokerStore(database: try await SQLiteDatabase.open(path: path))
        }
        #expect(error?.code == .unavailable)
    }
}
