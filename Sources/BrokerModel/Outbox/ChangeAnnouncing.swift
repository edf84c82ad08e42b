/// What a store asks, in the transaction of a change, for the outbox jobs that announce the audit events the change
/// records (the core's event routing, contract section 16): so a change that rolled back sends nothing and a committed
/// one is sent even across a crash.
public protocol ChangeAnnouncing: Sendable {
    /// The jobs announcing `event` of the account `uid`; none when nothing takes it.
    func jobs(for event: AuditEvent, uid: AccountID) -> [OutboxJob]
}
