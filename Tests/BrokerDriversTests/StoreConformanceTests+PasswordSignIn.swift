import BrokerCore
import BrokerDrivers
import Foundation
import Testing

/// A password sign-in that upgrades an imported hash: the session, the audit event and the new hash in one
/// transaction (contract section 8), on every backend.
extension StoreConformanceTests {
    static let importedHash = "$2b$04$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
    static let argon2Hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

    static func signInOptions(_ session: String, uid: String) -> AccountWriteOptions {
        AccountWriteOptions(
            issuing: SessionGrant(
                tokenHash: "rt-\(session)", sessionID: session, signInProvider: "password",
                createdAt: date(ms: Self.t0 + 10),
                expiresAt: date(ms: Self.t0 + 86_400_000)),
            recording: [
                AuditEvent(
                    time: date(ms: Self.t0 + 10), uid: AccountID(uid), action: .signIn, provider: "password",
                    actor: .user,
                    outcome: "success", requestID: "req-\(session)")
            ])
    }

    @Test(arguments: StoreBackend.enabled)
    func aPasswordSignInStoresTheSessionAndTheNewHashTogether(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let imported = Self.importedAccount("imp")
            try await store.create(imported)

            let signedIn = try await store.recordPasswordSignIn(
                id: imported.id, verifiedHash: Self.importedHash, rehash: Self.argon2Hash, at: date(ms: Self.t0 + 10),
                options: Self.signInOptions("s1", uid: "imp"))
            #expect(signedIn.passwordHash == Self.argon2Hash)
            #expect(signedIn.lastSignInAt == date(ms: Self.t0 + 10))
            let stored = try #require(try await store.account(id: imported.id))
            #expect(stored == signedIn)
            #expect(stored.origin == .import && stored.imported == imported.imported)
            #expect(try await store.refreshToken(hash: "rt-s1")?.sessionID == "s1")
            #expect(
                try await store.auditEvents(uid: imported.id, before: nil, limit: 10).map(\.requestID) == ["req-s1"])

            // Without a rehash (an Argon2id hash already) only the sign-in is recorded.
            let again = try await store.recordPasswordSignIn(
                id: imported.id, verifiedHash: Self.argon2Hash, rehash: nil, at: date(ms: Self.t0 + 20),
                options: Self.signInOptions("s2", uid: "imp"))
            #expect(again.passwordHash == Self.argon2Hash)
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
                _ = try await store.recordPasswordSignIn(
                    id: imported.id, verifiedHash: "$2b$04$stale", rehash: Self.argon2Hash, at: date(ms: Self.t0 + 10),
                    options: Self.signInOptions("s1", uid: "imp"))
            }
            // A derived credential never signs in, even with its own hash.
            var derived = Self.account("kakao-made", email: "k@example.com")
            derived.password = PasswordCredential(hash: Self.importedHash, isDerived: true)
            try await store.create(derived)
            await Self.expectAccountError(.invalidLoginCredentials) {
                _ = try await store.recordPasswordSignIn(
                    id: derived.id, verifiedHash: Self.importedHash, rehash: Self.argon2Hash,
                    at: date(ms: Self.t0 + 10),
                    options: Self.signInOptions("s2", uid: "kakao-made"))
            }
            // A disabled account is refused inside the transaction too.
            _ = try await store.update(id: imported.id) { $0.disabled = true }
            await Self.expectAccountError(.userDisabled) {
                _ = try await store.recordPasswordSignIn(
                    id: imported.id, verifiedHash: Self.importedHash, rehash: Self.argon2Hash,
                    at: date(ms: Self.t0 + 10),
                    options: Self.signInOptions("s3", uid: "imp"))
            }
            await expectStoreError(.notFound) {
                _ = try await store.recordPasswordSignIn(
                    id: AccountID("nobody"), verifiedHash: Self.importedHash, rehash: nil, at: date(ms: Self.t0 + 10),
                    options: Self.signInOptions("s4", uid: "nobody"))
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
