public import Foundation

extension MemoryBrokerStore {
    /// Records an attempt unless the email is locked (see ``LoginAttemptStore``).
    public func reserveLoginAttempt(emailKey: String, at date: Date, window: TimeInterval, limit: Int) -> Date? {
        let since = Date(timeIntervalSince1970: ((date - window).timeIntervalSince1970 * 1000).rounded() / 1000)
        for key in loginFailureLog.keys {
            loginFailureLog[key]?.removeAll { $0 < since }
        }
        let recorded = (loginFailureLog[emailKey] ?? []).sorted()
        if recorded.count >= limit { return recorded[recorded.count - limit] + window }
        loginFailureLog[emailKey, default: []].append(Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000))
        return nil
    }

    /// Forgets the one attempt recorded for `emailKey` at `date`.
    public func releaseLoginAttempt(emailKey: String, at date: Date) {
        let stored = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
        if let index = loginFailureLog[emailKey]?.firstIndex(of: stored) { loginFailureLog[emailKey]?.remove(at: index) }
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
