import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A password sign-in that upgrades an imported hash: the session, the audit event and the new hash in one
/// transaction (contract section 8), on every backend, through the service's commit.
extension StoreConformanceTests {
    static let importedHash = "$2b$04$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
    static let argon2Hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

    /// The sign-in's commit as ``AccountService/recordPasswordSignIn(_:session:requestID:)`` makes it over `store`
    /// (the rule that the hash verified must still be the account's usable one is the service's, checked in the
    /// store's transaction), at `ms`, with the session `session` and the request id `req-<session>`.
    static func recordPasswordSignIn(
        _ store: any BrokerStore, _ account: Account, verifiedHash: String, rehash: String?, at ms: Int64,
        session: String
    ) async throws -> Account {
        let service = try await AccountService(
            store: store, clock: ManualClock(date(ms: ms)), linkByVerifiedEmail: false,
            passwords: SaltedDigestPasswordHasher())
        let verified = AccountService.VerifiedPassword(account: account, verifiedHash: verifiedHash, rehash: rehash)
        let grant = SessionGrant(
            tokenHash: "rt-\(session)", sessionID: session, signInProvider: "password", createdAt: date(ms: ms),
            expiresAt: date(ms: ms + 86_400_000))
        return try await service.recordPasswordSignIn(verified, session: grant, requestID: "req-\(session)")
    }

    @Test(arguments: StoreBackend.enabled)
    func aPasswordSignInStoresTheSessionAndTheNewHashTogether(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let imported = Self.importedAccount("imp")
            try await store.create(imported)

            let signedIn = try await Self.recordPasswordSignIn(
                store, imported, verifiedHash: Self.importedHash, rehash: Self.argon2Hash, at: Self.t0 + 10,
                session: "s1")
            #expect(signedIn.password?.hash == Self.argon2Hash)
            #expect(signedIn.lastSignInAt == date(ms: Self.t0 + 10))
            let stored = try #require(try await store.account(id: imported.id))
            #expect(stored == signedIn)
            #expect(stored.origin == .import && stored.imported == imported.imported)
            #expect(try await store.refreshToken(hash: "rt-s1")?.sessionID == "s1")
            #expect(
                try await store.auditEvents(uid: imported.id, before: nil, limit: 10).map(\.requestID) == ["req-s1"])

            // Without a rehash (an Argon2id hash already) only the sign-in is recorded.
            let again = try await Self.recordPasswordSignIn(
                store, imported, verifiedHash: Self.argon2Hash, rehash: nil, at: Self.t0 + 20, session: "s2")
            #expect(again.password?.hash == Self.argon2Hash)
            #expect(try await store.account(id: imported.id)?.lastSignInAt == date(ms: Self.t0 + 20))
            #expect(try await store.refreshToken(hash: "rt-s2")?.sessionID == "s2")
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aPasswordSignInAgainstAChangedHashWritesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let imported = Self.importedAccount("imp")
            try await store.create(imported)

            // The hash checked is not the account's any more (a reset or a takeover changed it meanwhile).
            await Self.expectAccountError(.invalidLoginCredentials) {
                _ = try await Self.recordPasswordSignIn(
                    store, imported, verifiedHash: "$2b$04$stale", rehash: Self.argon2Hash, at: Self.t0 + 10,
                    session: "s1")
            }
            // A derived credential never signs in, even with its own hash.
            var derived = Self.account("kakao-made", email: "k@example.com")
            derived.password = PasswordCredential(hash: Self.importedHash, isDerived: true)
            try await store.create(derived)
            await Self.expectAccountError(.invalidLoginCredentials) {
                _ = try await Self.recordPasswordSignIn(
                    store, derived, verifiedHash: Self.importedHash, rehash: Self.argon2Hash, at: Self.t0 + 10,
                    session: "s2")
            }
            // A disabled account is refused inside the transaction too.
            _ = try await store.update(id: imported.id) { $0.disabled = true }
            await Self.expectAccountError(.userDisabled) {
                _ = try await Self.recordPasswordSignIn(
                    store, imported, verifiedHash: Self.importedHash, rehash: Self.argon2Hash, at: Self.t0 + 10,
                    session: "s3")
            }
            // An account deleted meanwhile: a wrong email or password, as the service answers it.
            await Self.expectAccountError(.invalidLoginCredentials) {
                _ = try await Self.recordPasswordSignIn(
                    store, Self.account("nobody", email: "n@example.com"), verifiedHash: Self.importedHash,
                    rehash: nil, at: Self.t0 + 10, session: "s4")
            }

            var expected = imported
            expected.disabled = true
            #expect(try await store.account(id: imported.id) == expected)
            #expect(try await store.account(id: derived.id) == derived)
            for session in ["s1", "s2", "s3", "s4"] {
                #expect(try await store.refreshToken(hash: "rt-\(session)") == nil)
            }
            #expect(try await store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)
        }
    }

    static func expectAccountError(
        _ code: AccountError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected AccountError \(code)", sourceLocation: sourceLocation)
        } catch let error as AccountError {
            #expect(error.code == code, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected AccountError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }
}
