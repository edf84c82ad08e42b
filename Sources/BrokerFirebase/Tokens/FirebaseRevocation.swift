public import BrokerCore
public import BrokerModel
public import Foundation

extension OutboxKind {
    /// Revoking a uid's Firebase refresh tokens (section 2).
    public static let firebaseRevoke = OutboxKind("firebase.revoke")
}

/// Revoking a uid's Firebase sessions through the outbox (contract section 2): the job is queued in the
/// transaction of the change that calls for it (a takeover, a provider's legacy link, an admin revocation, a deletion,
/// a password reset) and delivered by ``FirebaseRevokeHandler``.
public struct FirebaseRevocation: SessionRevoking {
    /// The revocation (made when a service account is configured).
    public init() {}

    /// The job that ends `uid`'s Firebase sessions.
    public func jobs(for uid: AccountID, at date: Date) -> [OutboxJob] { [Self.job(uid: uid, at: date)] }

    /// The `firebase.revoke` job for `uid`: `{"localId", "validSince"}` (whole epoch seconds of `date`).
    public static func job(uid: AccountID, at date: Date) -> OutboxJob {
        let seconds = Int64(max(0, min(date.timeIntervalSince1970, 1e11)).rounded(.down))
        let payload: JSONValue = ["localId": .string(uid.rawValue), "validSince": .int(seconds)]
        return OutboxJob(kind: .firebaseRevoke, uid: uid, payload: payload.serialized(), createdAt: date)
    }
}

/// Delivers `firebase.revoke` jobs with Firebase's admin API. A refusal Firebase gives for good (a 4xx other
/// than 401 and 429) ends the job, audited by the worker; anything else is retried with backoff.
public struct FirebaseRevokeHandler: OutboxHandling {
    let client: FirebaseAdminClient

    /// Creates the handler.
    public init(client: FirebaseAdminClient) { self.client = client }

    /// Revokes the sessions the payload names.
    public func deliver(_ job: OutboxJob, payload: [UInt8]) async throws {
        guard let body = JSONValue.parse(payload), let uid = body["localId"]?.stringValue, !uid.isEmpty,
            let seconds = body["validSince"]?.intValue, (0...100_000_000_000).contains(seconds)
        else { throw OutboxDeliveryError(.permanent, "firebase.revoke: malformed payload") }
        do {
            try await client.revokeSessions(
                uid: AccountID(uid), validSince: Date(timeIntervalSince1970: TimeInterval(seconds)))
        } catch let error as FirebaseAdminError where error.code == .refused {
            throw OutboxDeliveryError(.permanent, error.description)
        } catch let error as FirebaseAdminError {
            throw OutboxDeliveryError(.transient, error.description)
        }
    }
}
