import Foundation

extension SQLBrokerStore {
    /// Records a failed password sign-in, purging failures older than `forgetBefore`.
    public func recordLoginFailure(emailKey: String, at date: Date, forgetBefore: Date) async throws {
        try await write { connection in
            try connection.execute("DELETE FROM password_failures WHERE failed_at < ?", [Self.millis(forgetBefore)])
            try connection.execute(
                "INSERT INTO password_failures (email_key, failed_at) VALUES (?, ?)", [.text(emailKey), Self.millis(date)])
        }
    }

    /// The failures for `emailKey` since `date`, oldest first.
    public func loginFailures(emailKey: String, since date: Date) async throws -> [Date] {
        try await read { connection in
            try connection.query(
                "SELECT failed_at FROM password_failures WHERE email_key = ? AND failed_at >= ? ORDER BY failed_at",
                [.text(emailKey), Self.millis(date)]
            ).compactMap { $0.integer("failed_at").map(Self.date) }
        }
    }

    /// Forgets the failures for `emailKey`.
    public func clearLoginFailures(emailKey: String) async throws {
        try await write { connection in
            try connection.execute("DELETE FROM password_failures WHERE email_key = ?", [.text(emailKey)])
        }
    }
}
