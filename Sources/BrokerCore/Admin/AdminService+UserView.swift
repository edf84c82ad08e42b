import BrokerIdentity
public import BrokerModel
import BrokerStorage
import Foundation

extension AdminService {
    /// The most pending outbox jobs a user view lists.
    static let pendingJobsShown = 50

    /// The account as the admin user view shows it (``Account/adminJSON``), with `pendingOutbox`: the outbox's
    /// pending calls for it (a mail, a revocation, an unlink), never their payloads.
    public func userView(_ uid: AccountID) async throws -> JSONValue {
        let account = try await user(uid)
        guard case .object(var members) = account.adminJSON else { return account.adminJSON }
        let jobs = try await store.outboxJobs(uid: uid, limit: Self.pendingJobsShown)
        members["pendingOutbox"] = .array(jobs.filter { $0.state == .pending }.map(\.json))
        // Second factors (contract section 14): never a secret.
        let factors = try await secondFactors(uid)
        members["mfaFactors"] = .array(factors.factors.map(\.adminJSON))
        members["recoveryCodesLeft"] = .int(Int64(factors.recoveryCodesLeft))
        // Passkeys (contract section 15): never a key.
        members["passkeys"] = .array(try await store.passkeys(uid: uid).map(\.json))
        return .object(members)
    }

    /// The user's enrolled second factors and unused recovery codes.
    public func secondFactors(_ uid: AccountID) async throws -> (factors: [SecondFactorRecord], recoveryCodesLeft: Int)
    {
        (try await store.secondFactors(uid: uid), try await store.recoveryCodesLeft(uid: uid))
    }

    /// Removes a user's second factor (a lost phone; the recovery codes go with the last one), audited as
    /// `mfa_unenroll` by the administrator; `NOT_FOUND` for an unknown user or factor.
    public func removeSecondFactor(_ uid: AccountID, factorID: String, requestID: String) async throws {
        _ = try await user(uid)
        let event = AuditEvent(
            time: clock.now, uid: uid, action: .mfaUnenroll, provider: "totp", actor: .admin, requestID: requestID)
        guard try await store.deleteSecondFactor(id: factorID, uid: uid, recording: [event]) else {
            throw SecondFactorError(.factorNotFound, "no such factor")
        }
    }
}

extension AdminService {
    /// Removes a user's passkey, audited as `passkey_delete` by the administrator; `NOT_FOUND` for an unknown user or
    /// passkey. An administrator may remove an account's last way in (as an unlink of the last identity is refused,
    /// this is the exception: a stolen passkey must be removable; the account keeps its email flows).
    public func removePasskey(_ uid: AccountID, passkeyID id: String, requestID: String) async throws {
        _ = try await user(uid)
        let event = AuditEvent(
            time: clock.now, uid: uid, action: .passkeyDelete, provider: PasskeySignIn.label, actor: .admin,
            requestID: requestID)
        guard try await store.deletePasskey(id: id, uid: uid, recording: [event]) else {
            throw PasskeyError(.passkeyNotFound)
        }
    }
}

extension SecondFactorRecord {
    /// `{"factorId", "type", "displayName", "enrolledAt"}` as administrators see it: never the secret.
    public var adminJSON: JSONValue {
        [
            "factorId": .string(id), "type": .string(type), "displayName": displayName.map(JSONValue.string) ?? .null,
            "enrolledAt": enrolledAt.map { .string($0.rfc3339) } ?? .null,
        ]
    }
}

extension Identity {
    /// The identity as administrators see it: whether the broker holds a provider token for it
    /// (`providerTokenHeld`), never the token.
    public var adminJSON: JSONValue {
        .object([
            "provider": .string(provider.rawValue), "subject": .string(subject),
            "email": email.map(JSONValue.string) ?? .null, "linkedAt": .string(linkedAt.rfc3339),
            "providerTokenHeld": .bool(providerToken != nil),
        ])
    }
}
