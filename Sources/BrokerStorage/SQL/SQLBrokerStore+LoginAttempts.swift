public import Foundation

extension SQLBrokerStore {
    /// Records an attempt unless the email is locked (see ``LoginAttemptStore``), in one write transaction.
    public func reserveLoginAttempt(emailKey: String, at date: Date, window: TimeInterval, limit: Int) async throws -> Date? {
        let since = date - window
        return try await write { connection in
            try connection.execute("DELETE FROM password_failures WHERE failed_at < ?", [Self.millis(since)])
            let recorded = try connection.query(
                "SELECT failed_at FROM password_failures WHERE email_key = ? AND failed_at >= ? ORDER BY failed_at",
                [.text(emailKey), Self.millis(since)]
            ).compactMap { $0.integer("failed_at").map(Self.date) }
            if recorded.count >= limit { return recorded[recorded.count - limit] + window }
            try connection.execute(
                "INSERT INTO password_failures (email_key, failed_at) VALUES (?, ?)", [.text(emailKey), Self.millis(date)])
            return nil
        }
    }

    /// Forgets the one attempt recorded for `emailKey` at `date`.
    public func releaseLoginAttempt(emailKey: String, at date: Date) async throws {
        try await write { connection in
            // One row only, should two attempts share the millisecond.
            let rows = try connection.query(
                "SELECT failed_at FROM password_failures WHERE email_key = ? AND failed_at = ?",
                [.text(emailKey), Self.millis(date)])
            try connection.execute(
                "DELETE FROM password_failures WHERE email_key = ? AND failed_at = ?", [.text(emailKey), Self.millis(date)])
            for _ in rows.dropFirst() {
                try connection.execute(
                    "INSERT INTO password_failures (email_key, failed_at) VALUES (?, ?)", [.text(emailKey), Self.millis(date)])
            }
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
