import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Codes stored without a mail (Firebase's `returnOobLink`) and the used-code check, on every backend.
extension StoreConformanceTests {
    static func oobRecord(_ hash: String, _ action: MailAction, uid: String, at now: Date) -> OOBCodeRecord {
        OOBCodeRecord(
            codeHash: hash, action: action, uid: AccountID(uid), emailKey: "a@example.com", continueURL: nil,
            createdAt: now, expiresAt: now + 3600)
    }

    @Test(arguments: StoreBackend.enabled)
    func aStoredCodeCountsNoMailAndIsNotStoredTwice(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let codes = fixture.store
            let now = fixture.clock.now
            for index in 0..<6 {
                try await codes.storeOOBCode(
                    Self.oobRecord("hash-\(index)", .signIn, uid: "u\(index)", at: now), recording: [])
            }
            let stored = try #require(try await codes.oobCode(hash: "hash-5"))
            #expect(stored.action == .signIn)
            #expect(stored.uid == AccountID("u5"))
            #expect(stored.expiresAt.timeIntervalSince(stored.createdAt) == 3600)
            // Six stored codes counted no mail request: the address still gets its five mails.
            for _ in 0..<5 {
                #expect(
                    try await codes.requestMail(
                        emailKey: "a@example.com", at: now, limit: 5, window: 3600, code: nil, mail: nil, recording: [])
                )
            }
            await #expect(throws: AccountStoreError.self) {
                try await codes.storeOOBCode(
                    Self.oobRecord("hash-0", .resetPassword, uid: "other", at: now), recording: [])
            }
            #expect(try await codes.oobCode(hash: "hash-0")?.action == .signIn)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aCodeIsUsedOnceItsMarkIsRecordedUntilTheMarkExpires(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let codes = store
            let now = fixture.clock.now
            try await store.create(Self.account("u1", email: "a@example.com"))
            try await codes.storeOOBCode(Self.oobRecord("hash-1", .verifyEmail, uid: "u1", at: now), recording: [])
            #expect(try await codes.isOOBCodeUsed(hash: "hash-1", at: now) == false)
            let mark = SingleUseMark(key: "oob:hash-1", expiresAt: now + 3600)
            _ = try await store.update(id: AccountID("u1"), options: AccountWriteOptions(consuming: mark)) {
                $0.emailVerified = true
            }
            #expect(try await codes.isOOBCodeUsed(hash: "hash-1", at: now))
            #expect(try await codes.isOOBCodeUsed(hash: "hash-2", at: now) == false)
            #expect(try await codes.isOOBCodeUsed(hash: "hash-1", at: now + 3601) == false)
        }
    }
}

/// Reset codes bound to the account's password (contract section 9), on every backend.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aNewResetCodeOrAPasswordChangeRetiresTheAccountsResetCodes(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let codes = store
            let now = fixture.clock.now
            var alice = Self.account("alice")
            alice.password = .chosen("hash-one")
            try await store.create(alice)
            try await codes.storeOOBCode(Self.oobRecord("reset-1", .resetPassword, uid: "alice", at: now), recording: [])
            try await codes.storeOOBCode(Self.oobRecord("verify-1", .verifyEmail, uid: "alice", at: now), recording: [])
            try await codes.storeOOBCode(Self.oobRecord("reset-bob", .resetPassword, uid: "bob", at: now), recording: [])
            // A newer reset code (mailed, through requestMail) replaces the older one of the same account alone.
            #expect(
                try await codes.requestMail(
                    emailKey: "a@example.com", at: now, limit: 5, window: 3600,
                    code: Self.oobRecord("reset-2", .resetPassword, uid: "alice", at: now), mail: nil, recording: []))
            #expect(try await codes.oobCode(hash: "reset-1") == nil)
            #expect(try await codes.oobCode(hash: "reset-2") != nil)
            #expect(try await codes.oobCode(hash: "reset-bob") != nil)

            // A write that leaves the password alone keeps it; one that changes the hash retires every reset code
            // of the account, and no other code.
            _ = try await store.update(id: AccountID("alice")) { $0.displayName = "Alice" }
            #expect(try await codes.oobCode(hash: "reset-2") != nil)
            _ = try await store.update(id: AccountID("alice")) { $0.password = .chosen("hash-two") }
            #expect(try await codes.oobCode(hash: "reset-2") == nil)
            #expect(try await codes.oobCode(hash: "verify-1") != nil)
            #expect(try await codes.oobCode(hash: "reset-bob") != nil)
        }
    }
}

/// A rehearsed mail request (an address without an account) is counted like any other and keeps neither its code
/// nor its mail, on every backend.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aRehearsedMailRequestIsCountedAndKeepsNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let now = fixture.clock.now
            let queued = try await store.outboxJobs(uid: nil, limit: 10)
            #expect(queued.isEmpty)
            for index in 0..<2 {
                let code = Self.oobRecord("rehearsed-\(index)", .resetPassword, uid: "nobody-\(index)", at: now)
                let mail = OutboxJob(
                    kind: .mail, payload: Array("{}".utf8), createdAt: now, id: "rehearsed-job-\(index)")
                #expect(
                    try await store.requestMail(
                        emailKey: "nobody@example.com", at: now, limit: 2, window: 3600, code: code, mail: mail,
                        recording: [], rehearsing: true))
                #expect(try await store.oobCode(hash: "rehearsed-\(index)") == nil)
            }
            #expect(try await store.outboxJobs(uid: nil, limit: 10).isEmpty)
            // Both were counted: the third request of the address is refused.
            #expect(
                try await !store.requestMail(
                    emailKey: "nobody@example.com", at: now, limit: 2, window: 3600, code: nil, mail: nil, recording: [],
                    rehearsing: true))
        }
    }
}
