public import BrokerModel
public import Foundation

/// Ends an account's sessions held outside the broker (another system's refresh tokens) when the broker ends its own:
/// the jobs it returns are queued in the transaction of the change that calls for it (a takeover, a provider's legacy
/// link, an admin revocation, a deletion, a password reset) and delivered by the outbox handler of their kind, which
/// the module that made them registers.
public protocol SessionRevoking: Sendable {
    /// The outbox jobs that end `uid`'s sessions there, as of `date`.
    func jobs(for uid: AccountID, at date: Date) -> [OutboxJob]
}

/// What ending an account's sessions reaches (contract section 2): the broker's own sessions, and those of every
/// ``SessionRevoking`` the composition was given. Decided once, at composition, for every service that ends sessions.
public struct SessionRevocation: Sendable {
    /// Where else sessions end.
    let elsewhere: [any SessionRevoking]

    /// The broker's own sessions and those `elsewhere` ends.
    public init(elsewhere: [any SessionRevoking]) { self.elsewhere = elsewhere }

    /// Only the broker's sessions.
    public static let brokerOnly = SessionRevocation(elsewhere: [])

    /// The outbox jobs that end `uid`'s sessions beyond the broker's, at `date`.
    public func jobs(for uid: AccountID, at date: Date) -> [OutboxJob] {
        elsewhere.flatMap { $0.jobs(for: uid, at: date) }
    }
}
