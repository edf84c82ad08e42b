public import BrokerModel
import Foundation

/// A store that queues the announcements of the changes it writes (``AccountWriteOptions/announcing(_:uid:)``), as it
/// was made to (`events:` of its initializer): a store is never reconfigured after it is made.
public protocol EventAnnouncing: Sendable {
    /// What announces the store's changes; nil: nothing.
    var announcer: (any ChangeAnnouncing)? { get }
}

extension AccountWriteOptions {
    /// These options with the announcements of their recorded audit events queued too, for the account `uid`.
    public func announcing(_ announcer: (any ChangeAnnouncing)?, uid: AccountID) -> AccountWriteOptions {
        guard let announcer, !recording.isEmpty else { return self }
        var options = self
        for event in recording { options.enqueuing += announcer.jobs(for: event, uid: event.uid ?? uid) }
        return options
    }
}
