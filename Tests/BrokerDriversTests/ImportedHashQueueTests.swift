import BrokerCore
import BrokerFirebase
import BrokerCrypto
@testable import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Issue 25, finding 7: imported hashes are verified on a small queue of their own. Wrong guesses at imported
/// accounts that fill it do not hold up an Argon2id sign-in, and the next imported attempt is refused at once (429
/// `TOO_MANY_ATTEMPTS` with `Retry-After`), not counted toward the account's lockout. No timing: the imported
/// verifier blocks until the test releases it.
@Suite(.serialized) struct ImportedHashQueueTests {
    /// An imported verifier that blocks until released, and never matches.
    final class Gate: @unchecked Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func wait() { semaphore.wait() }
        func release(_ count: Int) { for _ in 0..<count { semaphore.signal() } }
    }

    /// A stored imported hash (PBKDF2-SHA256); the gate decides, never the hash.
    static let importedHash = "$pbkdf2-sha256$i=1000,s=$AAAA$AAAAAAAAAAAAAAAAAAAAAA"

    static func hasher(_ gate: Gate, waiters: Int) -> MigratingPasswordHasher {
        MigratingPasswordHasher(
            argon2: Argon2PasswordHasher(workers: 2), importedWorkers: 1, importedWaiters: waiters
        ) { _, _ in
            gate.wait()
            return false
        }
    }

    /// Waits (at most 60 s) until the imported queue runs one verification and `waiters` wait; when it never does,
    /// opens the gate for good (so nothing stays blocked) and fails the test.
    static func saturate(_ hasher: MigratingPasswordHasher, waiters: Int, gate: Gate) async throws {
        for _ in 0..<6000 {
            if hasher.importedPool.jobsStarted == 1 && hasher.importedPool.waiting == waiters { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        gate.release(100)
        try #require(Bool(false), "the imported queue never filled")
    }

    @Test func anArgon2idVerificationProceedsWhileTheImportedQueueIsFull() async throws {
        let gate = Gate()
        let hasher = Self.hasher(gate, waiters: 2)
        let argon2Hash = try await hasher.hash("correct horse")
        let guesses = (0..<3).map { index in
            Task { try await hasher.verify("guess-\(index)", against: Self.importedHash) }
        }
        try await Self.saturate(hasher, waiters: 2, gate: gate)

        // The imported queue is full and its worker is held: an Argon2id verification still runs and answers.
        #expect(try await hasher.verify("correct horse", against: argon2Hash))
        #expect(try await hasher.verify("wrong horse", against: argon2Hash) == false)
        // The next imported verification is refused at once.
        await #expect(throws: PasswordHashingError.overloaded) {
            try await hasher.verify("one more", against: Self.importedHash)
        }
        #expect(hasher.importedPool.jobsStarted == 1)

        gate.release(100)  // the three, and any the queue took against expectation
        for guess in guesses { #expect(try await guess.value == false) }
        #expect(hasher.importedPool.peakRunning == 1)
    }

    /// Through both surfaces: a full imported queue answers 429 with `Retry-After` and counts no failure, while
    /// another user's Argon2id sign-in succeeds.
    @Test func aFullImportedQueueAnswers429WithoutALockoutCountAndArgon2SignInsGoOn() async throws {
        let gate = Gate()
        let hasher = Self.hasher(gate, waiters: 1)
        let broker = try await InProcessBroker.start(passwords: hasher)
        let signUp = await broker.post("/v1/signup", ["email": "argon@example.com", "password": "argon-password-1"])
        #expect(signUp.status == 201)
        let imported = Account(
            id: AccountID("imported-uid"), email: "imported@example.com", createdAt: Date(),
            password: .chosen(Self.importedHash), origin: .import)
        try await broker.store.create(imported)
        let start = Date().addingTimeInterval(-60)

        let guesses = (0..<2).map { index in
            Task {
                await broker.post(
                    "/v1/signin/password", ["email": "imported@example.com", "password": .string("guess-\(index)")])
            }
        }
        try await Self.saturate(hasher, waiters: 1, gate: gate)

        let refused = await broker.post("/v1/signin/password", ["email": "imported@example.com", "password": "guess-2"])
        #expect(refused.status == 429)
        #expect(refused.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(refused.headers["retry-after"] != nil)
        let firebase = await broker.firebasePost(
            FirebaseEndpoints.identityToolkitPath + "/accounts:signInWithPassword?key=test-api-key",
            ["email": "imported@example.com", "password": "guess-3", "returnSecureToken": true])
        // Firebase answers its TOO_MANY_ATTEMPTS_TRY_LATER with 400, and so does the listener (with Retry-After).
        #expect(firebase.status == 400, "\(String(decoding: firebase.body, as: UTF8.self))")
        #expect(firebase.json?["error"]?["message"]?.stringValue?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        #expect(firebase.headers["retry-after"] != nil)
        // Only the two attempts whose password is being checked count; the refused ones do not.
        #expect(await broker.store.loginFailures(emailKey: "imported@example.com", since: start).count == 2)

        // Another user's Argon2id sign-in is not held behind them.
        let argon = await broker.post("/v1/signin/password", ["email": "argon@example.com", "password": "argon-password-1"])
        #expect(argon.status == 200)

        gate.release(100)  // the two, and any the queue took against expectation
        for guess in guesses {
            let answer = await guess.value
            #expect(answer.status == 400)
            #expect(answer.errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
        #expect(await broker.store.loginFailures(emailKey: "imported@example.com", since: start).count == 2)
        #expect(await broker.store.account(id: AccountID("imported-uid"))?.password?.hash == Self.importedHash)
    }
}
