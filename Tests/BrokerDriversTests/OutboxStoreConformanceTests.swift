import BrokerCore
import BrokerDrivers
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The outbox cases of the store conformance suite, on every backend (memory, SQLite file, SQLite in
/// memory, PostgreSQL when `BROKER_TEST_POSTGRES_URL` is set). Each case checks the state afterwards.
@Suite("OutboxStore conformance")
struct OutboxStoreConformanceTests {
    static let t0 = date(ms: 1_799_999_000_123)

    static func job(_ id: String, kind: OutboxKind = .mail, uid: String? = nil, secret: Bool = false, at offset: Int64 = 0)
        -> OutboxJob
    {
        OutboxJob(
            kind: kind, uid: uid.map { AccountID($0) }, payload: Array("{\"n\":\"\(id)\"}".utf8), secret: secret,
            createdAt: date(ms: 1_799_999_000_123 + offset), id: id)
    }

    static func outbox(_ fixture: StoreFixture) throws -> any OutboxStore {
        fixture.store
    }

    static func event(_ action: String) -> AuditEvent {
        AuditEvent(time: t0, uid: AccountID("alice"), action: AuditAction(rawValue: action), actor: .system, requestID: "test")
    }

    @Test(arguments: StoreBackend.enabled)
    func enqueuedJobsAreListedAndReadBackExactly(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let outbox = try Self.outbox(fixture)
            let first = Self.job("j1", uid: "alice")
            let second = Self.job("j2", kind: .appleRevoke, uid: "bob", secret: true, at: 5)
            try await outbox.enqueue([first, second], recording: [Self.event("mail_queued")])

            #expect(try await outbox.outboxJob(id: "j1") == first)
            #expect(try await outbox.outboxJob(id: "j2") == second)
            #expect(try await outbox.outboxJob(id: "nope") == nil)
            #expect(try await outbox.outboxJobs(uid: nil, limit: 10) == [second, first])
            #expect(try await outbox.outboxJobs(uid: AccountID("alice"), limit: 10) == [first])
            #expect(try await outbox.outboxJobs(uid: nil, limit: 1) == [second])
            #expect(try await outbox.outboxStats() == OutboxStats(pending: 2, oldestPendingCreatedAt: Self.t0))
            let events = try await fixture.store.auditEvents(uid: AccountID("alice"), before: nil, limit: 10)
            #expect(events.map(\.action.rawValue) == ["mail_queued"])
        }
    }

    /// An administrator's retry: a failed job is due again with its id and attempts, a leased, delivered or
    /// emptied secret one is left as it is.
    @Test(arguments: StoreBackend.enabled)
    func aRetryMakesOnlyAFailedJobDueAgain(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let outbox = try Self.outbox(fixture)
            try await outbox.enqueue([
                Self.job("given-up"), Self.job("secret", secret: true, at: 1), Self.job("leased", at: 2),
                Self.job("sent", at: 3),
            ])
            let claims = try await outbox.claimDueJobs(
                now: Self.t0.addingTimeInterval(10), limit: 10, leaseToken: "w", leaseDuration: 60)
            #expect(claims.count == 4)
            let later = Self.t0.addingTimeInterval(20)
            for claim in claims {
                switch claim.job.id {
                case "given-up", "secret":
                    _ = try await outbox.finish(claim, as: .givenUp(error: "gone"), at: later, recording: [])
                case "sent": _ = try await outbox.finish(claim, as: .delivered, at: later, recording: [])
                default: break
                }
            }
            let now = Self.t0.addingTimeInterval(30)
            #expect(try await outbox.retryOutboxJob(id: "given-up", at: now))
            let retried = try #require(try await outbox.outboxJob(id: "given-up"))
            #expect(retried.state == .pending && retried.nextAttemptAt == now && retried.finishedAt == nil)
            #expect(retried.attempts == 1 && retried.lastError == "gone")
            #expect(try await outbox.retryOutboxJob(id: "secret", at: now) == false)
            #expect(try await outbox.outboxJob(id: "secret")?.state == .givenUp)
            #expect(try await outbox.retryOutboxJob(id: "leased", at: now) == false)
            #expect(try await outbox.retryOutboxJob(id: "sent", at: now) == false)
            #expect(try await outbox.outboxJob(id: "sent")?.state == .delivered)
            #expect(try await outbox.retryOutboxJob(id: "nope", at: now) == false)
            let due = try await outbox.claimDueJobs(now: now, limit: 10, leaseToken: "w2", leaseDuration: 60)
            #expect(due.map(\.job.id) == ["given-up"])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aDuplicateJobIDStoresNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let outbox = try Self.outbox(fixture)
            try await outbox.enqueue([Self.job("j1")])
            await expectStoreError(.alreadyExists) {
                try await outbox.enqueue([Self.job("j2"), Self.job("j1")], recording: [Self.event("mail_queued")])
            }
            #expect(try await outbox.outboxJobs(uid: nil, limit: 10).map(\.id) == ["j1"])
            #expect(try await fixture.store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func accountWritesQueueTheirJobsInTheSameTransaction(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let outbox = try Self.outbox(fixture)
            let alice = Account(id: AccountID("alice"), email: "alice@example.com", createdAt: Self.t0)
            try await store.create(alice, options: AccountWriteOptions(enqueuing: [Self.job("created")]))
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(enqueuing: [Self.job("updated", at: 1)])) {
                $0.displayName = "Alice"
            }
            // A refused write queues nothing: the email is taken.
            let bob = Account(id: AccountID("bob"), email: "ALICE@example.com", createdAt: Self.t0)
            await expectStoreError(.alreadyExists) {
                try await store.create(bob, options: AccountWriteOptions(enqueuing: [Self.job("refused-create")]))
            }
            // A body that throws queues nothing.
            await #expect(throws: StoreConformanceTests.BodyFailure.self) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(enqueuing: [Self.job("refused-update")])) {
                    _ in throw StoreConformanceTests.BodyFailure()
                }
            }
            try await store.delete(
                id: alice.id,
                options: AccountWriteOptions(recording: [Self.event("delete")], enqueuing: [Self.job("deleted", kind: .appleRevoke, at: 2)]))
            await expectStoreError(.notFound) {
                try await store.delete(id: alice.id, options: AccountWriteOptions(enqueuing: [Self.job("deleted-again")]))
            }

            let jobs = try await outbox.outboxJobs(uid: nil, limit: 10)
            #expect(jobs.map(\.id) == ["deleted", "updated", "created"])
            #expect(jobs.allSatisfy { $0.uid == alice.id })
            #expect(try await store.account(id: alice.id) == nil)
            #expect(try await store.auditEvents(uid: alice.id, before: nil, limit: 10).map(\.action.rawValue) == ["delete"])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aClaimLeasesDueJobsOnceUntilTheLeaseRunsOut(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let outbox = try Self.outbox(fixture)
            try await outbox.enqueue([Self.job("j1"), Self.job("j2", at: 1), Self.job("later", at: 60_000)])

            let now = Self.t0 + 10
            let claims = try await outbox.claimDueJobs(now: now, limit: 10, leaseToken: "A", leaseDuration: 300)
            #expect(claims.map(\.job.id) == ["j1", "j2"])
            #expect(claims.allSatisfy { $0.job.attempts == 1 && $0.leaseToken == "A" })
            #expect(try await outbox.claimDueJobs(now: now, limit: 10, leaseToken: "B", leaseDuration: 300).isEmpty)

            // After the lease, another worker may take the job (a worker that died).
            let retaken = try await outbox.claimDueJobs(now: now + 301, limit: 1, leaseToken: "C", leaseDuration: 300)
            #expect(retaken.map(\.job.id) == ["j1"])
            #expect(retaken.first?.job.attempts == 2)
            // The first lease no longer finishes it.
            #expect(try await outbox.finish(claims[0], as: .delivered, at: now, recording: [Self.event("x")]) == false)
            #expect(try await outbox.outboxJob(id: "j1")?.state == .pending)
            #expect(try await fixture.store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)
            #expect(try await outbox.finish(retaken[0], as: .delivered, at: now + 302, recording: []) == true)
            #expect(try await outbox.outboxJob(id: "j1")?.state == .delivered)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func deliveredIsFinalAndDeletesASecretPayload(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let outbox = try Self.outbox(fixture)
            try await outbox.enqueue([Self.job("secret", uid: "alice", secret: true), Self.job("plain", uid: "alice", at: 1)])
            let claims = try await outbox.claimDueJobs(now: Self.t0 + 5, limit: 10, leaseToken: "A", leaseDuration: 300)
            #expect(claims.count == 2)
            for claim in claims {
                #expect(try await outbox.finish(claim, as: .delivered, at: Self.t0 + 6, recording: [Self.event("outbox_delivered")]))
                // Finishing twice changes nothing.
                #expect(try await outbox.finish(claim, as: .retry(at: Self.t0, error: "x"), at: Self.t0 + 7, recording: []) == false)
            }
            let secret = try #require(try await outbox.outboxJob(id: "secret"))
            #expect(secret.state == .delivered && secret.payload.isEmpty && secret.finishedAt == Self.t0 + 6)
            let plain = try #require(try await outbox.outboxJob(id: "plain"))
            #expect(plain.state == .delivered && plain.payload == Self.job("plain").payload)
            #expect(try await outbox.claimDueJobs(now: Self.t0 + 999_999, limit: 10, leaseToken: "B", leaseDuration: 300).isEmpty)
            #expect(try await outbox.outboxStats() == OutboxStats(pending: 0, oldestPendingCreatedAt: nil))
            #expect(try await fixture.store.auditEvents(uid: nil, before: nil, limit: 10).count == 2)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aRetryWaitsAndRefusedOrGivenUpEnd(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let outbox = try Self.outbox(fixture)
            try await outbox.enqueue([Self.job("retry"), Self.job("refused", secret: true, at: 1), Self.job("gone", at: 2)])
            let claims = try await outbox.claimDueJobs(now: Self.t0 + 5, limit: 10, leaseToken: "A", leaseDuration: 300)
            #expect(claims.map(\.job.id) == ["retry", "refused", "gone"])
            let retryAt = Self.t0 + 8
            #expect(try await outbox.finish(claims[0], as: .retry(at: retryAt, error: "connection refused"), at: Self.t0 + 6, recording: []))
            #expect(try await outbox.finish(claims[1], as: .refused(error: "550 no such user"), at: Self.t0 + 6, recording: []))
            #expect(try await outbox.finish(claims[2], as: .givenUp(error: "down"), at: Self.t0 + 6, recording: []))

            let retry = try #require(try await outbox.outboxJob(id: "retry"))
            #expect(retry.state == .pending && retry.nextAttemptAt == retryAt && retry.lastError == "connection refused")
            #expect(retry.attempts == 1)
            let refused = try #require(try await outbox.outboxJob(id: "refused"))
            #expect(refused.state == .refused && refused.payload.isEmpty && refused.lastError == "550 no such user")
            #expect(try await outbox.outboxJob(id: "gone")?.state == .givenUp)

            // Not due before its time, due after, with the lease released by the retry.
            #expect(try await outbox.claimDueJobs(now: Self.t0 + 7, limit: 10, leaseToken: "B", leaseDuration: 300).isEmpty)
            let again = try await outbox.claimDueJobs(now: retryAt, limit: 10, leaseToken: "B", leaseDuration: 300)
            #expect(again.map(\.job.id) == ["retry"])
            #expect(again.first?.job.attempts == 2)
        }
    }
}

/// Two stores ("instances") on one database claiming concurrently: every job is claimed exactly once.
@Suite("Outbox claims across instances")
struct OutboxClaimRaceTests {
    static let backends: [StoreBackend] = StoreBackend.enabled.filter { $0 == .sqliteFile || $0.isPostgres }

    @Test(arguments: backends)
    func concurrentClaimsThroughTwoInstancesTakeEachJobOnce(backend: StoreBackend) async throws {
        try await withTwoStores(backend) { first, second in
            let now = date(ms: 1_800_000_000_000)
            let jobs = (0..<60).map { OutboxJob(kind: .mail, payload: [UInt8(truncatingIfNeeded: $0)], createdAt: now, id: "job-\($0)") }
            try await first.enqueue(jobs)
            let claimed = try await concurrently(16) { index -> [String] in
                let store = index.isMultiple(of: 2) ? first : second
                var mine: [String] = []
                for round in 0..<10 {
                    do {
                        let claims = try await store.claimDueJobs(
                            now: now, limit: 3, leaseToken: "worker-\(index)-\(round)", leaseDuration: 300)
                        mine += claims.map(\.job.id)
                    } catch let error as AccountStoreError where error.code == .unavailable {
                        continue  // a busy database is a pass that claims nothing
                    }
                }
                return mine
            }
            let all = claimed.flatMap { $0 }
            #expect(all.count == Set(all).count)
            // Whatever the races left unclaimed is still claimable, once.
            let rest = try await first.claimDueJobs(now: now, limit: 100, leaseToken: "sweeper", leaseDuration: 300).map(\.job.id)
            #expect(Set(all).isDisjoint(with: rest))
            #expect(Set(all).union(rest) == Set(jobs.map(\.id)))
            let stored = try await second.outboxJobs(uid: nil, limit: 100)
            #expect(stored.allSatisfy { $0.attempts == 1 })
        }
    }

    func withTwoStores(_ backend: StoreBackend, _ body: (SQLBrokerStore, SQLBrokerStore) async throws -> Void) async throws {
        var databases: [any SQLDatabase] = []
        var cleanup: @Sendable () async -> Void = {}
        switch backend {
        case .postgres, .pgbouncer:
            let schema = try await PostgresTestSchema.create(in: backend.baseURL)
            databases = [try PostgresDatabase(url: schema.url, poolSize: 4), try PostgresDatabase(url: schema.url, poolSize: 4)]
            cleanup = { await schema.drop() }
        default:
            let directory = try makeTemporaryDirectory()
            let path = directory.appendingPathComponent("broker.sqlite").path
            databases = [try await SQLiteDatabase.open(path: path), try await SQLiteDatabase.open(path: path)]
            cleanup = { try? FileManager.default.removeItem(at: directory) }
        }
        do {
            let first = try await SQLBrokerStore(database: databases[0])
            let second = try await SQLBrokerStore(database: databases[1])
            try await body(first, second)
        } catch {
            for database in databases { await database.close() }
            await cleanup()
            throw error
        }
        for database in databases { await database.close() }
        await cleanup()
    }
}
