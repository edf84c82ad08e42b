public import BrokerModel
import BrokerStorage
public import Foundation

extension AccountService {
    /// The account a custom token's first sign-in makes: its uid, no email, no password, no identity.
    static func newCustomTokenAccount(_ uid: AccountID, at now: Date) -> Account {
        Account(
            id: uid, email: nil, emailVerified: false, createdAt: now, lastSignInAt: now, origin: .provider(.custom))
    }

    /// Signs in to account `uid`, named by a verified custom token issued at `issuedAt` (its `iat`),
    /// creating it (no email, no password, no identity) when no account has that uid, as the compatibility contract does (section 11). `session`
    /// is stored with the sign-in, and with `requestID` its audit event, in one transaction. A disabled account is
    /// `userDisabled`; a token minted up to the uid's cutoff (a takeover, a password reset or a deletion came
    /// after it) is `AccountStoreError(.cutOff)`, checked inside the transaction, and writes nothing (a deleted
    /// uid is not made again).
    public func customTokenSignIn(
        uid: AccountID, issuedAt: Date, session: SessionGrant, requestID: String?
    ) async throws -> (account: Account, isNewUser: Bool) {
        let now = clock.now
        return try await retryingRaces {
            if try await store.account(id: uid) != nil {
                let events = signInEvents(.none, uid: uid, provider: .custom, requestID: requestID)
                let options = AccountWriteOptions(issuing: session, recording: events, customTokenIssuedAt: issuedAt)
                let account = try await store.update(id: uid, options: options) { account in
                    guard !account.disabled else { throw AccountError(.userDisabled) }
                    account.lastSignInAt = now
                }
                return (account, false)
            }
            let account = Self.newCustomTokenAccount(uid, at: now)
            let events = signInEvents(.created, uid: uid, provider: .custom, requestID: requestID)
            // A concurrent first sign-in with the same uid makes this `alreadyExists`: retried as a returning one.
            let options = AccountWriteOptions(issuing: session, recording: events, customTokenIssuedAt: issuedAt)
            try await store.create(account, options: options)
            return (account, true)
        }
    }
}

extension ProviderID {
    /// Sign-in with a custom token (the `custom` provider id).
    public static let custom = ProviderID("custom")
}
