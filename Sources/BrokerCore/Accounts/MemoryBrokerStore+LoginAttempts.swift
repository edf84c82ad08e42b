import Foundation

extension MemoryBrokerStore {
    /// Records a failed password sign-in, purging failures older than `forgetBefore`.
    public func recordLoginFailure(emailKey: String, at date: Date, forgetBefore: Date) {
        for key in loginFailureLog.keys {
            loginFailureLog[key]?.removeAll { $0 < forgetBefore }
        }
        loginFailureLog[emailKey, default: []].append(date)
    }

    /// The failures for `emailKey` since `date`, oldest first.
    public func loginFailures(emailKey: String, since date: Date) -> [Date] {
        (loginFailureLog[emailKey] ?? []).filter { $0 >= date }.sorted()
    }

    /// Forgets the failures for `emailKey`.
    public func clearLoginFailures(emailKey: String) {
        loginFailureLog[emailKey] = nil
    }
}
