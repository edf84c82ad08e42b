import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The import's batches: one transaction each, and an import that stopped part way finished by a second run.
extension FirebaseImporterTests {
    /// A store that forwards to another and fails its `failing`-th batch and every one after (a database gone
    /// mid-import), counting the batches it was handed.
    final class FailingBatches: AccountStore, AccountImporting, AccountQuerying, @unchecked Sendable {
        let store: any BrokerStore
        let failing: Int
        private let lock = NSLock()
        private var batches: [Int] = []

        init(_ store: any BrokerStore, failingFrom failing: Int) {
            self.store = store
            self.failing = failing
        }

        var batchSizes: [Int] { lock.withLock { batches } }

        /// The import's way into this store; listings and second factors read from the one behind it.
        var transfer: AccountTransfer { AccountTransfer(importingInto: self, directory: store, secondFactors: store) }

        func importAccounts(
            _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors], record: ImportRecord
        ) async throws -> [AccountImportOutcome] {
            let number = lock.withLock {
                batches.append(accounts.count)
                return batches.count
            }
            guard number < failing else { throw AccountStoreError(.unavailable, "the database went away") }
            return try await store.importAccounts(accounts, secondFactors: secondFactors, record: record)
        }

        func account(id: AccountID) async throws -> Account? { try await store.account(id: id) }
        func account(provider: ProviderID, subject: String) async throws -> Account? {
            try await store.account(provider: provider, subject: subject)
        }
        func account(email: String) async throws -> Account? { try await store.account(email: email) }
        func account(phoneNumber: String) async throws -> Account? { try await store.account(phoneNumber: phoneNumber) }
        func listAccounts(afterUID uid: AccountID?, limit: Int) async throws -> [Account] {
            try await store.listAccounts(afterUID: uid, limit: limit)
        }
        func create(_ account: Account, options: AccountWriteOptions) async throws {
            Issue.record("the import wrote an account outside a batch")
            try await store.create(account, options: options)
        }
        func update(
            id: AccountID, options: AccountWriteOptions, _ body: @escaping @Sendable (inout Account) throws -> Void
        ) async throws -> Account {
            try await store.update(id: id, options: options, body)
        }
        func update(
            linkedTo provider: ProviderID, subject: String, options: AccountWriteOptions,
            _ body: @escaping @Sendable (inout Account) throws -> Void
        ) async throws -> Account? {
            try await store.update(linkedTo: provider, subject: subject, options: options, body)
        }
        func delete(id: AccountID, options: AccountWriteOptions) async throws {
            try await store.delete(id: id, options: options)
        }
        func delete(
            id: AccountID, options: AccountWriteOptions,
            enqueuingFor jobs: @escaping @Sendable (Account) throws -> [OutboxJob]
        ) async throws {
            try await store.delete(id: id, options: options, enqueuingFor: jobs)
        }
        func customTokenCutoff(uid: AccountID) async throws -> Date? { try await store.customTokenCutoff(uid: uid) }
        func consume(_ mark: SingleUseMark) async throws {
            try await store.consume(mark)
        }
    }

    static func users(_ count: Int) -> [String] {
        (0..<count).map { index in
            #"{"localId": "u\#(index)", "email": "u\#(index)@example.com", "providerUserInfo": [{"providerId": "google.com", "rawId": "g-\#(index)"}]}"#
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func usersAreWrittenInBatchesOfTheBatchSize(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let counting = FailingBatches(fixture.store, failingFrom: .max)
            let export = try Self.export(Self.users(12))
            let calls = ProgressLog()
            let report = try await Self.importer(counting.transfer, clock: fixture.clock)
                .run(export, batchSize: 5, progress: { calls.append($0, $1) })
            #expect(report == FirebaseImporter.Report(imported: 12))
            #expect(counting.batchSizes == [5, 5, 2])
            #expect(calls.entries == [[5, 12], [10, 12], [12, 12]])
            for index in 0..<12 {
                #expect(try await fixture.store.account(id: AccountID("u\(index)"))?.email == "u\(index)@example.com")
            }
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func anInterruptedImportIsFinishedByRunningItAgain(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let export = try Self.export(Self.users(12))
            // The first run stops at its third batch: the two before it are written whole, nothing after.
            let failing = FailingBatches(fixture.store, failingFrom: 3)
            await #expect(throws: AccountStoreError.self) {
                _ = try await Self.importer(failing.transfer, clock: fixture.clock).run(export, batchSize: 4)
            }
            #expect(failing.batchSizes == [4, 4, 4])
            var prefix: [Account] = []
            for index in 0..<8 {
                prefix.append(try #require(try await fixture.store.account(id: AccountID("u\(index)"))))
            }
            for index in 8..<12 { #expect(try await fixture.store.account(id: AccountID("u\(index)")) == nil) }

            // The second run reports the rest imported and leaves the prefix as it was.
            fixture.clock.advance(by: 60)
            let report = try await Self.importer(fixture.store, clock: fixture.clock).run(export, batchSize: 4)
            #expect(report == FirebaseImporter.Report(imported: 4, unchanged: 8))
            for index in 0..<8 { #expect(try await fixture.store.account(id: AccountID("u\(index)")) == prefix[index]) }
            for index in 8..<12 {
                let account = try #require(try await fixture.store.account(id: AccountID("u\(index)")))
                #expect(account.identities.map(\.subject) == ["g-\(index)"])
                #expect(account.imported?.index == index)
            }
        }
    }
}
