public import BrokerModel
public import Foundation

/// Deleting an account unlinks its Kakao user (contract section 10), when `adminKeyFile` is configured: a
/// `kakao.unlink` job `{"targetId"}` queued in the deletion's transaction, delivered by ``KakaoUnlinkHandler``.
extension KakaoProvider: AccountDeletionParticipating, OutboxHandlerProviding {
    /// One `kakao.unlink` job for the identity's Kakao user id, when an admin key is configured.
    public func deletionJobs(for identity: Identity, of account: Account, at date: Date) throws -> [OutboxJob] {
        guard adminKey != nil, let userID = Int64(identity.subject), userID > 0 else { return [] }
        let payload: JSONValue = ["targetId": .string(String(userID))]
        return [OutboxJob(kind: .kakaoUnlink, uid: account.id, payload: payload.serialized(), createdAt: date)]
    }

    /// The unlink handler, when an admin key is configured.
    public var outboxHandlers: [OutboxKind: any OutboxHandling] {
        guard let adminKey else { return [:] }
        return [.kakaoUnlink: KakaoUnlinkHandler(api: api, adminKey: adminKey)]
    }
}
