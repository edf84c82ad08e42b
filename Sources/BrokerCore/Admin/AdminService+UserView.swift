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
        return .object(members)
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
