public import BrokerModel
public import Foundation

/// Deleting an account revokes its Apple refresh token (contract section 10): an `apple.revoke` job queued in the
/// deletion's transaction, its payload (the still-sealed token) secret, delivered by ``AppleRevokeHandler``.
extension AppleProvider: AccountDeletionParticipating, OutboxHandlerProviding {
    /// One `apple.revoke` job when the identity holds a refresh token and a client secret is configured.
    public func deletionJobs(for identity: Identity, of account: Account, at date: Date) throws -> [OutboxJob] {
        guard exchange != nil, let sealed = identity.providerToken else { return [] }
        return [Self.revokeJob(subject: identity.subject, sealed: sealed, uid: account.id, at: date)]
    }

    /// The `apple.revoke` job of the sealed refresh token `sealed` of `subject`.
    static func revokeJob(subject: String, sealed: String, uid: AccountID?, at date: Date) -> OutboxJob {
        let payload: JSONValue = ["subject": .string(subject), "token": .string(sealed)]
        return OutboxJob(kind: .appleRevoke, uid: uid, payload: payload.serialized(), secret: true, createdAt: date)
    }

    /// The revocation handler, when a client secret is configured.
    public var outboxHandlers: [OutboxKind: any OutboxHandling] {
        guard let exchange else { return [:] }
        return [.appleRevoke: AppleRevokeHandler(exchange: exchange)]
    }
}

/// Delivers `apple.revoke` jobs: opens the sealed refresh token and posts it to `{apiBaseUrl}/auth/revoke`. Apple's
/// 200 is done; a refusal (`invalid_client`, another 4xx) or a token that no longer opens with the broker's key ends
/// the job, audited by the worker; Apple being down, slow or answering 5xx/429 is retried with backoff.
struct AppleRevokeHandler: OutboxHandling {
    let exchange: AppleCodeExchange

    func deliver(_ job: OutboxJob, payload: [UInt8]) async throws {
        guard let body = JSONValue.parse(payload), let subject = body["subject"]?.stringValue,
            let sealed = body["token"]?.stringValue
        else { throw OutboxDeliveryError(.permanent, "apple.revoke: malformed payload") }
        let token: String
        do {
            token = try exchange.cipher.open(sealed, context: exchange.sealingContext(subject: subject))
        } catch {
            throw OutboxDeliveryError(.permanent, "apple.revoke: the stored token does not open with BROKER_ENCRYPTION_KEY")
        }
        do {
            try await exchange.api.revoke(refreshToken: token)
        } catch let error as ProviderError where error.code == .unavailable {
            throw OutboxDeliveryError(.transient, error.detail)
        } catch let error as ProviderError {
            throw OutboxDeliveryError(.permanent, error.detail)
        }
    }
}

/// The app's own revocation (`accounts:revokeToken` with an authorization code): the code is exchanged for the
/// refresh token of the identity's subject (``AppleCodeExchange``, which refuses a code of another user), and an
/// `apple.revoke` job revokes it.
extension AppleProvider: AuthorizationCodeRevoking {
    /// Whether a client secret is configured.
    public var revokesAuthorizationCodes: Bool { exchange != nil }

    /// One `apple.revoke` job for the refresh token `code` yields.
    public func revocationJobs(
        authorizationCode code: String, for identity: Identity, at date: Date
    ) async throws -> [OutboxJob] {
        guard let exchange else { throw ProviderError(.misconfigured, "apple: no clientSecret to exchange codes with") }
        let sealed = try await exchange.refreshToken(code: code, subject: identity.subject)
        return [Self.revokeJob(subject: identity.subject, sealed: sealed, uid: nil, at: date)]
    }
}
