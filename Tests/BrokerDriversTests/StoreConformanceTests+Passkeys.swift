import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Schema version 20: passkeys (contract section 15) on every backend: a credential id is registered once, a
/// challenge is spent once and only by its own ceremony before it expires, a counter moves only from the value read,
/// and a takeover-like write or a deletion removes the account's passkeys.
extension StoreConformanceTests {
    static func passkey(_ id: String, uid: String, createdAt: Int64 = t0) -> PasskeyRecord {
        PasskeyRecord(
            id: id, uid: AccountID(uid), userHandle: "handle-\(uid)", publicKey: [0xa5, 0x01, 0x02, 0x03, 0x26],
            algorithm: -7, signCount: 0, transports: ["internal", "hybrid"], name: "Phone",
            createdAt: date(ms: createdAt), backupEligible: true, backedUp: false)
    }

    static func challenge(
        _ hash: String, _ ceremony: PasskeyCeremony, uid: String? = nil, expiresAt: Int64 = t0 + 300_000
    ) -> PasskeyChallengeRecord {
        PasskeyChallengeRecord(
            challengeHash: hash, ceremony: ceremony, uid: uid.map { AccountID($0) }, userHandle: uid.map { "h-\($0)" },
            email: ceremony == .signUp ? "new@example.com" : nil, displayName: ceremony == .signUp ? "New" : nil,
            createdAt: date(ms: t0), expiresAt: date(ms: expiresAt))
    }

    @Test(arguments: StoreBackend.enabled)
    func aPasskeyIsRegisteredOnceAndListedWithItsAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("pk", email: "pk@example.com"))
            try await store.create(Self.account("other", email: "other@example.com"))
            let event = AuditEvent(
                time: date(ms: Self.t0), uid: nil, action: .passkeyRegister, provider: "passkey", actor: .user,
                requestID: "r")
            try await store.insertPasskey(Self.passkey("c2", uid: "pk", createdAt: Self.t0 + 5), recording: [event])
            try await store.insertPasskey(Self.passkey("c1", uid: "pk"), recording: [])
            #expect(try await store.passkeys(uid: AccountID("pk")).map(\.id) == ["c1", "c2"])
            #expect(try await store.passkey(id: "c1") == Self.passkey("c1", uid: "pk"))
            #expect(try await store.passkey(id: "nope") == nil)
            // The same credential id again, on this account or another: alreadyExists, nothing written.
            await expectStoreError(.alreadyExists) {
                try await store.insertPasskey(Self.passkey("c1", uid: "other"), recording: [event])
            }
            #expect(try await store.passkeys(uid: AccountID("other")).isEmpty)
            // No account: notFound.
            await expectStoreError(.notFound) {
                try await store.insertPasskey(Self.passkey("c3", uid: "ghost"), recording: [])
            }
            #expect(try await store.passkey(id: "c3") == nil)
            let events = try await store.auditEvents(uid: AccountID("pk"), before: nil, limit: 10)
            #expect(events.map(\.action) == [.passkeyRegister])
            #expect(try await store.auditEvents(uid: AccountID("other"), before: nil, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aPasswordlessSignUpStoresTheAccountAndItsPasskeyTogetherOrNeither(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("taken", email: "taken@example.com"))
            try await store.insertPasskey(Self.passkey("used", uid: "taken"), recording: [])
            let event = AuditEvent(
                time: date(ms: Self.t0), uid: nil, action: .signUp, provider: "passkey", actor: .user, requestID: "r")
            let options = AccountWriteOptions(recording: [event])
            try await store.createPasskeyAccount(
                Self.account("new", email: "new@example.com"), passkey: Self.passkey("fresh", uid: "new"),
                options: options)
            #expect(try await store.account(id: AccountID("new"))?.email == "new@example.com")
            #expect(try await store.passkeys(uid: AccountID("new")).map(\.id) == ["fresh"])
            #expect(
                try await store.auditEvents(uid: AccountID("new"), before: nil, limit: 10).map(\.action) == [.signUp])
            // A credential id registered already: credentialTaken, no account.
            await expectStoreError(.credentialTaken) {
                try await store.createPasskeyAccount(
                    Self.account("second", email: "second@example.com"), passkey: Self.passkey("used", uid: "second"),
                    options: options)
            }
            #expect(try await store.account(id: AccountID("second")) == nil)
            // An email taken: alreadyExists, no passkey.
            await expectStoreError(.alreadyExists) {
                try await store.createPasskeyAccount(
                    Self.account("third", email: "taken@example.com"), passkey: Self.passkey("other", uid: "third"),
                    options: options)
            }
            #expect(try await store.account(id: AccountID("third")) == nil)
            #expect(try await store.passkey(id: "other") == nil)
            #expect(try await store.auditEvents(uid: AccountID("third"), before: nil, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aGuestsUpgradeByAPasskeyStoresThePasskeyAndTheChangeTogetherOrNeither(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("holder", email: "taken@example.com"))
            try await store.insertPasskey(Self.passkey("used", uid: "holder"), recording: [])
            var guest = Self.account("guest", email: nil)
            guest.isAnonymous = true
            try await store.create(guest)
            let event = AuditEvent(
                time: date(ms: Self.t0), uid: nil, action: .signUp, provider: "passkey", actor: .user, requestID: "r")
            let options = AccountWriteOptions(recording: [event])
            // A credential id registered already: credentialTaken, the account unchanged.
            await expectStoreError(.credentialTaken) {
                _ = try await store.insertPasskey(Self.passkey("used", uid: "guest"), options: options) {
                    $0.isAnonymous = false
                }
            }
            // An email taken: alreadyExists, no passkey.
            await expectStoreError(.alreadyExists) {
                _ = try await store.insertPasskey(Self.passkey("fresh", uid: "guest"), options: options) {
                    $0.email = "taken@example.com"
                    $0.isAnonymous = false
                }
            }
            // The body refuses: nothing written.
            await #expect(throws: GuestError.notAGuest) {
                try await store.insertPasskey(Self.passkey("fresh", uid: "guest"), options: options) { _ in
                    throw GuestError.notAGuest
                }
            }
            // No account: notFound.
            await expectStoreError(.notFound) {
                _ = try await store.insertPasskey(Self.passkey("fresh", uid: "ghost"), options: options) { _ in }
            }
            #expect(try await store.passkey(id: "fresh") == nil)
            #expect(try await store.account(id: AccountID("guest"))?.isAnonymous == true)
            #expect(try await store.auditEvents(uid: AccountID("guest"), before: nil, limit: 10).isEmpty)

            let upgraded = try await store.insertPasskey(Self.passkey("fresh", uid: "guest"), options: options) {
                $0.email = "guest@example.com"
                $0.isAnonymous = false
            }
            #expect(upgraded.email == "guest@example.com" && !upgraded.isAnonymous)
            #expect(try await store.account(id: AccountID("guest")) == upgraded)
            #expect(try await store.passkeys(uid: AccountID("guest")).map(\.id) == ["fresh"])
            #expect(
                try await store.auditEvents(uid: AccountID("guest"), before: nil, limit: 10).map(\.action)
                    == [.signUp])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aChallengeIsSpentOnceByItsOwnCeremonyBeforeItExpires(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.insertPasskeyChallenge(Self.challenge("reg", .registration, uid: "pk"))
            try await store.insertPasskeyChallenge(Self.challenge("up", .signUp))
            try await store.insertPasskeyChallenge(Self.challenge("in", .signIn, expiresAt: Self.t0 + 10))
            // Another ceremony does not spend it.
            #expect(
                try await store.consumePasskeyChallenge(hash: "reg", ceremony: .signIn, at: date(ms: Self.t0)) == nil)
            let spent = try await store.consumePasskeyChallenge(
                hash: "reg", ceremony: .registration, at: date(ms: Self.t0))
            #expect(spent == Self.challenge("reg", .registration, uid: "pk"))
            #expect(
                try await store.consumePasskeyChallenge(hash: "reg", ceremony: .registration, at: date(ms: Self.t0))
                    == nil)
            let signUp = try await store.consumePasskeyChallenge(
                hash: "up", ceremony: .signUp, at: date(ms: Self.t0 + 1))
            #expect(signUp?.email == "new@example.com" && signUp?.displayName == "New" && signUp?.uid == nil)
            // Expired: not spent.
            #expect(
                try await store.consumePasskeyChallenge(hash: "in", ceremony: .signIn, at: date(ms: Self.t0 + 11))
                    == nil)
            // A later insert purges it.
            try await store.insertPasskeyChallenge(
                PasskeyChallengeRecord(
                    challengeHash: "later", ceremony: .signIn, createdAt: date(ms: Self.t0 + 20),
                    expiresAt: date(ms: Self.t0 + 300_020)))
            #expect(
                try await store.consumePasskeyChallenge(hash: "in", ceremony: .signIn, at: date(ms: Self.t0)) == nil)
            #expect(
                try await store.consumePasskeyChallenge(hash: "later", ceremony: .signIn, at: date(ms: Self.t0 + 21))
                    != nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aSignInMovesTheCounterOnlyFromTheValueRead(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("pk", email: "pk@example.com"))
            try await store.insertPasskey(Self.passkey("c1", uid: "pk"), recording: [])
            let event = AuditEvent(
                time: date(ms: Self.t0 + 7), uid: nil, action: .signIn, provider: "passkey", actor: .user,
                requestID: "r")
            let account = try await store.completePasskeySignIn(
                id: "c1", signCount: 3, previousSignCount: 0, backedUp: true, at: date(ms: Self.t0 + 7),
                options: AccountWriteOptions(recording: [event]))
            #expect(account.id == AccountID("pk") && account.lastSignInAt == date(ms: Self.t0 + 7))
            let after = try await store.passkey(id: "c1")
            #expect(after?.signCount == 3 && after?.backedUp == true && after?.lastUsedAt == date(ms: Self.t0 + 7))
            #expect(try await store.account(id: AccountID("pk"))?.lastSignInAt == date(ms: Self.t0 + 7))
            // A racing sign-in read 0 too: it loses and writes nothing.
            await expectStoreError(.alreadyUsed) {
                _ = try await store.completePasskeySignIn(
                    id: "c1", signCount: 4, previousSignCount: 0, backedUp: false, at: date(ms: Self.t0 + 8),
                    options: AccountWriteOptions(recording: [event]))
            }
            await expectStoreError(.alreadyUsed) {
                _ = try await store.completePasskeySignIn(
                    id: "gone", signCount: 1, previousSignCount: 0, backedUp: false, at: date(ms: Self.t0 + 8),
                    options: AccountWriteOptions())
            }
            #expect(try await store.passkey(id: "c1") == after)
            // A disabled account: refused, the counter unmoved.
            _ = try await store.update(id: AccountID("pk")) { $0.disabled = true }
            await expectStoreError(.disabled) {
                _ = try await store.completePasskeySignIn(
                    id: "c1", signCount: 4, previousSignCount: 3, backedUp: false, at: date(ms: Self.t0 + 9),
                    options: AccountWriteOptions(recording: [event]))
            }
            #expect(try await store.passkey(id: "c1") == after)
            let events = try await store.auditEvents(uid: AccountID("pk"), before: nil, limit: 10)
            #expect(events.map(\.action) == [.signIn])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aPasskeyIsRenamedAndDeletedOnlyByItsAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("pk", email: "pk@example.com"))
            try await store.insertPasskey(Self.passkey("c1", uid: "pk"), recording: [])
            #expect(try await store.renamePasskey(id: "c1", uid: AccountID("other"), name: "Mine") == nil)
            #expect(try await store.renamePasskey(id: "c1", uid: AccountID("pk"), name: "Laptop")?.name == "Laptop")
            #expect(try await store.renamePasskey(id: "c1", uid: AccountID("pk"), name: nil)?.name == nil)
            let event = AuditEvent(
                time: date(ms: Self.t0), uid: nil, action: .passkeyDelete, provider: "passkey", actor: .user,
                requestID: "r")
            #expect(try await store.deletePasskey(id: "c1", uid: AccountID("other"), recording: [event]) == false)
            #expect(try await store.passkey(id: "c1") != nil)
            #expect(try await store.deletePasskey(id: "c1", uid: AccountID("pk"), recording: [event]))
            #expect(try await store.passkey(id: "c1") == nil)
            #expect(try await store.deletePasskey(id: "c1", uid: AccountID("pk"), recording: [event]) == false)
            let events = try await store.auditEvents(uid: AccountID("pk"), before: nil, limit: 10)
            #expect(events.map(\.action) == [.passkeyDelete])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aTakeoverWriteAndADeletionRemoveThePasskeys(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("squat", email: "squat@example.com"))
            try await store.create(Self.account("kept", email: "kept@example.com"))
            try await store.insertPasskey(Self.passkey("c-squat", uid: "squat"), recording: [])
            try await store.insertPasskey(Self.passkey("c-kept", uid: "kept"), recording: [])
            try await store.insertPasskeyChallenge(Self.challenge("reg-squat", .registration, uid: "squat"))
            _ = try await store.update(id: AccountID("squat"), options: AccountWriteOptions(removesSecondFactors: true))
            {
                $0.emailVerified = true
            }
            #expect(try await store.passkeys(uid: AccountID("squat")).isEmpty)
            #expect(try await store.passkey(id: "c-squat") == nil)
            #expect(
                try await store.consumePasskeyChallenge(
                    hash: "reg-squat", ceremony: .registration, at: date(ms: Self.t0))
                    == nil)
            // The credential id may be registered again (by its owner).
            try await store.insertPasskey(Self.passkey("c-squat", uid: "kept"), recording: [])
            _ = try await store.update(id: AccountID("kept")) { $0.displayName = "Kept" }
            #expect(try await store.passkeys(uid: AccountID("kept")).count == 2)
            try await store.delete(id: AccountID("kept"))
            #expect(try await store.passkeys(uid: AccountID("kept")).isEmpty)
            #expect(try await store.passkey(id: "c-kept") == nil)
        }
    }
}
