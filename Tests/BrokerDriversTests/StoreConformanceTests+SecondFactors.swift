import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Schema version 17: second factors (contract section 14) on every backend: an enrolment is pending until
/// verified, a code's step works once, recovery codes are used up, a pending sign-in dies after its limit of wrong
/// codes and is spent by its completion (which rechecks the factor inside its transaction), and a takeover-like write
/// or a deletion removes the account's factors.
extension StoreConformanceTests {
    static func factor(_ id: String, uid: String, createdAt: Int64 = t0) -> SecondFactorRecord {
        SecondFactorRecord(id: id, uid: AccountID(uid), sealedSecret: "sealed-\(id)", createdAt: date(ms: createdAt))
    }

    static func pending(_ hash: String, uid: String, expiresAt: Int64 = t0 + 300_000) -> PendingSignInRecord {
        PendingSignInRecord(
            credentialHash: hash, uid: AccountID(uid), signInProvider: "password", surface: .native,
            createdAt: date(ms: t0), expiresAt: date(ms: expiresAt))
    }

    /// Stores `uid` with one verified factor `f1` (last step 10) and recovery codes `r1`, `r2`.
    static func enrolled(_ store: any BrokerStore, _ uid: String) async throws {
        try await store.create(Self.account(uid, email: "\(uid)@example.com"))
        try await store.insertSecondFactor(Self.factor("f1-\(uid)", uid: uid), purgeBefore: date(ms: t0 - 1))
        let confirmed = try await store.confirmSecondFactor(
            id: "f1-\(uid)", uid: AccountID(uid), displayName: "Phone", step: 10, at: date(ms: t0 + 1),
            madeAfter: date(ms: t0 - 600_000), recoveryCodeHashes: ["r1", "r2"], recording: [])
        #expect(confirmed?.enrolledAt == date(ms: t0 + 1))
    }

    @Test(arguments: StoreBackend.enabled)
    func anEnrolmentIsPendingUntilVerifiedOnce(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let uid = AccountID("mfa")
            try await store.create(Self.account("mfa", email: "mfa@example.com"))
            try await store.insertSecondFactor(Self.factor("f1", uid: "mfa"), purgeBefore: date(ms: Self.t0 - 1))
            #expect(try await store.secondFactors(uid: uid).isEmpty)
            #expect(try await store.secondFactor(id: "f1", uid: uid) == Self.factor("f1", uid: "mfa"))
            #expect(try await store.secondFactor(id: "f1", uid: AccountID("other")) == nil)
            // Too old an enrolment is not verified.
            let late = try await store.confirmSecondFactor(
                id: "f1", uid: uid, displayName: nil, step: 5, at: date(ms: Self.t0 + 1), madeAfter: date(ms: Self.t0),
                recoveryCodeHashes: ["x"], recording: [])
            #expect(late == nil)
            let event = AuditEvent(
                time: date(ms: Self.t0 + 1), uid: nil, action: .mfaEnroll, provider: "totp", actor: .user,
                requestID: "r")
            let confirmed = try await store.confirmSecondFactor(
                id: "f1", uid: uid, displayName: "Phone", step: 5, at: date(ms: Self.t0 + 1),
                madeAfter: date(ms: Self.t0 - 1), recoveryCodeHashes: ["a", "b", "c"], recording: [event])
            #expect(confirmed?.displayName == "Phone" && confirmed?.lastUsedStep == 5)
            #expect(try await store.secondFactors(uid: uid).map(\.id) == ["f1"])
            #expect(try await store.recoveryCodesLeft(uid: uid) == 3)
            let again = try await store.confirmSecondFactor(
                id: "f1", uid: uid, displayName: nil, step: 6, at: date(ms: Self.t0 + 2),
                madeAfter: date(ms: Self.t0 - 1), recoveryCodeHashes: [], recording: [])
            #expect(again == nil)
            #expect(try await store.recoveryCodesLeft(uid: uid) == 3)
            let events = try await store.auditEvents(uid: uid, before: nil, limit: 10)
            #expect(events.map(\.action) == [.mfaEnroll])
            // A new pending enrolment purges the older pending ones, never an enrolled factor.
            try await store.insertSecondFactor(Self.factor("f2", uid: "mfa"), purgeBefore: date(ms: Self.t0 + 1))
            try await store.insertSecondFactor(
                Self.factor("f3", uid: "mfa", createdAt: Self.t0 + 5), purgeBefore: date(ms: Self.t0 + 1))
            #expect(try await store.secondFactor(id: "f2", uid: uid) == nil)
            #expect(try await store.secondFactor(id: "f1", uid: uid) != nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func recoveryCodesAreReplacedAndGoWithTheLastFactor(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let uid = AccountID("rc")
            try await store.create(Self.account("none"))
            #expect(try await store.replaceRecoveryCodes(uid: AccountID("none"), hashes: ["x"], recording: []) == false)
            #expect(try await store.recoveryCodesLeft(uid: AccountID("none")) == 0)
            try await Self.enrolled(store, "rc")
            #expect(try await store.replaceRecoveryCodes(uid: uid, hashes: ["n1", "n2", "n3"], recording: []))
            #expect(try await store.recoveryCodesLeft(uid: uid) == 3)
            #expect(try await store.deleteSecondFactor(id: "nope", uid: uid, recording: []) == false)
            #expect(try await store.deleteSecondFactor(id: "f1-rc", uid: AccountID("none"), recording: []) == false)
            #expect(try await store.deleteSecondFactor(id: "f1-rc", uid: uid, recording: []))
            #expect(try await store.secondFactors(uid: uid).isEmpty)
            #expect(try await store.recoveryCodesLeft(uid: uid) == 0)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aCompletionSpendsThePendingSignInAndUsesTheStepOrCodeOnce(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let uid = AccountID("done")
            try await Self.enrolled(store, "done")
            let now = date(ms: Self.t0 + 10)
            try await store.insertPendingSignIn(Self.pending("p1", uid: "done"))
            #expect(try await store.pendingSignIn(hash: "p1", at: now)?.uid == uid)
            #expect(try await store.pendingSignIn(hash: "p1", at: date(ms: Self.t0 + 300_001)) == nil)
            // A used step is refused, and the refusal changes nothing.
            await expectStoreError(.stale) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "p1", proof: .totp(factorID: "f1-done", step: 10), at: now,
                    options: AccountWriteOptions())
            }
            #expect(try await store.pendingSignIn(hash: "p1", at: now) != nil)
            let grant = SessionGrant(
                tokenHash: "t1", sessionID: "s1", signInProvider: "password", createdAt: now,
                expiresAt: now + 3600)
            let account = try await store.completeSecondFactor(
                pendingHash: "p1", proof: .totp(factorID: "f1-done", step: 11), at: now,
                options: AccountWriteOptions(issuing: grant))
            #expect(account.id == uid && account.lastSignInAt == now)
            #expect(try await store.account(id: uid)?.lastSignInAt == now)
            #expect(try await store.refreshToken(hash: "t1")?.accountID == uid)
            #expect(try await store.secondFactor(id: "f1-done", uid: uid)?.lastUsedStep == 11)
            // Spent: the same credential finishes nothing again.
            await expectStoreError(.notFound) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "p1", proof: .totp(factorID: "f1-done", step: 12), at: now,
                    options: AccountWriteOptions())
            }
            // A recovery code works once.
            try await store.insertPendingSignIn(Self.pending("p2", uid: "done"))
            try await store.insertPendingSignIn(Self.pending("p3", uid: "done"))
            _ = try await store.completeSecondFactor(
                pendingHash: "p2", proof: .recoveryCode(hash: "r1"), at: now, options: AccountWriteOptions())
            #expect(try await store.recoveryCodesLeft(uid: uid) == 1)
            await expectStoreError(.stale) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "p3", proof: .recoveryCode(hash: "r1"), at: now, options: AccountWriteOptions())
            }
            // The factor removed after the decision: the commit refuses.
            #expect(try await store.deleteSecondFactor(id: "f1-done", uid: uid, recording: []))
            await expectStoreError(.stale) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "p3", proof: .totp(factorID: "f1-done", step: 20), at: now,
                    options: AccountWriteOptions())
            }
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aPendingSignInDiesAtItsLimitOfWrongCodes(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await Self.enrolled(store, "wrong")
            try await store.insertPendingSignIn(Self.pending("p", uid: "wrong"))
            var counts: [Int?] = []
            for _ in 0..<3 { counts.append(try await store.recordPendingFailure(hash: "p", limit: 3)) }
            #expect(counts == [1, 2, 3])
            #expect(try await store.pendingSignIn(hash: "p", at: date(ms: Self.t0)) == nil)
            #expect(try await store.recordPendingFailure(hash: "p", limit: 3) == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aTakeoverWriteAndADeletionRemoveTheFactors(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await Self.enrolled(store, "squat")
            try await Self.enrolled(store, "kept")
            try await store.insertPendingSignIn(Self.pending("ps", uid: "squat"))
            _ = try await store.update(id: AccountID("squat"), options: AccountWriteOptions(removesSecondFactors: true))
            {
                $0.emailVerified = true
            }
            #expect(try await store.secondFactors(uid: AccountID("squat")).isEmpty)
            #expect(try await store.secondFactor(id: "f1-squat", uid: AccountID("squat")) == nil)
            #expect(try await store.recoveryCodesLeft(uid: AccountID("squat")) == 0)
            #expect(try await store.pendingSignIn(hash: "ps", at: date(ms: Self.t0)) == nil)
            // Another account's are kept; an ordinary write removes nothing.
            _ = try await store.update(id: AccountID("kept")) { $0.displayName = "Kept" }
            #expect(try await store.secondFactors(uid: AccountID("kept")).count == 1)
            try await store.delete(id: AccountID("kept"))
            #expect(try await store.secondFactors(uid: AccountID("kept")).isEmpty)
            #expect(try await store.recoveryCodesLeft(uid: AccountID("kept")) == 0)
        }
    }
}
