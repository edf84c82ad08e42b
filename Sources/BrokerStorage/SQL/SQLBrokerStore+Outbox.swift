import BrokerCrypto
public import BrokerModel
public import Foundation

/// The outbox over SQL: one statement text for SQLite and PostgreSQL (PostgreSQL's claim adds
/// `FOR UPDATE SKIP LOCKED`, so concurrent claimers pass over each other's rows instead of queueing).
///
/// A claim is a conditional update (`WHERE state = 'pending' AND` the lease is free or ran out): of two
/// transactions racing for one row, the loser changes nothing (SQLite has one writer; PostgreSQL's
/// serializable transactions rerun the loser, which then finds the lease taken).
extension SQLBrokerStore {
    static let outboxColumnNames = [
        "id", "kind", "uid", "payload", "secret", "sealed", "created_at", "attempts", "next_attempt_at", "state",
        "finished_at", "last_error",
    ]
    static let outboxColumns = outboxColumnNames.joined(separator: ", ")
    static let insertOutboxJob =
        "INSERT INTO outbox_jobs (\(outboxColumns)) VALUES ("
        + Array(repeating: "?", count: outboxColumnNames.count).joined(separator: ", ") + ")"
    static let selectDueJobs = """
        SELECT \(outboxColumns) FROM outbox_jobs
        WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
        ORDER BY next_attempt_at, id LIMIT ?
        """
    static let leaseJob = """
        UPDATE outbox_jobs SET lease_token = ?, lease_expires_at = ?, attempts = attempts + 1
        WHERE id = ? AND state = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
        """
    static let markDelivered = """
        UPDATE outbox_jobs SET state = 'delivered', finished_at = ?, lease_token = NULL, lease_expires_at = NULL,
            last_error = NULL, payload = CASE WHEN secret = 1 THEN '' ELSE payload END
        WHERE id = ? AND state = 'pending' AND lease_token = ?
        """
    static let markRetry = """
        UPDATE outbox_jobs SET next_attempt_at = ?, last_error = ?, lease_token = NULL, lease_expires_at = NULL
        WHERE id = ? AND state = 'pending' AND lease_token = ?
        """
    static let markEnded = """
        UPDATE outbox_jobs SET state = ?, finished_at = ?, last_error = ?, lease_token = NULL, lease_expires_at = NULL,
            payload = CASE WHEN secret = 1 THEN '' ELSE payload END
        WHERE id = ? AND state = 'pending' AND lease_token = ?
        """

    /// Stores the jobs and events in one transaction; a job id stored before throws `alreadyExists`.
    public func enqueue(_ jobs: [OutboxJob], recording events: [AuditEvent]) async throws {
        guard !jobs.isEmpty || !events.isEmpty else { return }
        try await write { connection in
            for job in jobs { try connection.execute(Self.insertOutboxJob, Self.outboxJobValues(job)) }
            for event in events { try connection.execute(Self.insertAuditEvent, Self.auditEventValues(event)) }
        }
    }

    /// Leases up to `limit` due jobs; see ``OutboxStore/claimDueJobs(now:limit:leaseToken:leaseDuration:)``.
    public func claimDueJobs(now: Date, limit: Int, leaseToken: String, leaseDuration: TimeInterval) async throws
        -> [OutboxClaim]
    {
        let limit = max(1, min(limit, 1000))
        let expires = Date(timeIntervalSince1970: (now + max(1, leaseDuration)).timeIntervalSince1970)
        let select = database.dialect == .postgres ? Self.selectDueJobs + " FOR UPDATE SKIP LOCKED" : Self.selectDueJobs
        // The poll runs every half second on every instance: a read finds out first whether anything is due,
        // so an idle outbox never takes the write lock from sign-ins.
        let anyDue = try await read { connection in
            try !connection.query(Self.selectDueJobs, [Self.millis(now), Self.millis(now), .integer(1)]).isEmpty
        }
        guard anyDue else { return [] }
        return try await write { connection in
            let rows = try connection.query(select, [Self.millis(now), Self.millis(now), .integer(Int64(limit))])
            var claims: [OutboxClaim] = []
            for row in rows {
                var job = try Self.decodeOutboxJob(row)
                let changed = try connection.execute(
                    Self.leaseJob, [.text(leaseToken), Self.millis(expires), .text(job.id), Self.millis(now)])
                guard changed == 1 else { continue }
                job.attempts += 1
                claims.append(OutboxClaim(job: job, leaseToken: leaseToken, leaseExpiresAt: Self.storedDate(expires)))
            }
            return claims
        }
    }

    /// Ends the claim's attempt in one write, with its audit events; false (nothing written) once the lease
    /// was lost.
    public func finish(_ claim: OutboxClaim, as outcome: OutboxOutcome, at now: Date, recording events: [AuditEvent])
        async throws -> Bool
    {
        let id = SQLValue.text(claim.job.id)
        let token = SQLValue.text(claim.leaseToken)
        let finished = try await write { connection in
            let changed: Int
            switch outcome {
            case .delivered:
                changed = try connection.execute(Self.markDelivered, [Self.millis(now), id, token])
            case .retry(let at, let error):
                changed = try connection.execute(Self.markRetry, [Self.millis(at), .text(Self.bounded(error)), id, token])
            case .refused(let error):
                changed = try connection.execute(
                    Self.markEnded,
                    [.text(OutboxState.refused.rawValue), Self.millis(now), .text(Self.bounded(error)), id, token])
            case .givenUp(let error):
                changed = try connection.execute(
                    Self.markEnded,
                    [.text(OutboxState.givenUp.rawValue), Self.millis(now), .text(Self.bounded(error)), id, token])
            }
            guard changed == 1 else { return false }
            for event in events { try connection.execute(Self.insertAuditEvent, Self.auditEventValues(event)) }
            return true
        }
        // A secret payload (a mail's code, a provider's token) was just emptied: out of the files with it too.
        if finished, claim.job.secret {
            if case .retry = outcome {} else { database.eraseDeletedContent() }
        }
        return finished
    }

    /// Up to `limit` jobs (of `uid`, if given), newest first.
    public func outboxJobs(uid: AccountID?, limit: Int) async throws -> [OutboxJob] {
        let limit = SQLValue.integer(Int64(max(1, min(limit, 1000))))
        return try await read { connection in
            let rows =
                if let uid {
                    try connection.query(
                        "SELECT \(Self.outboxColumns) FROM outbox_jobs WHERE uid = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                        [.text(uid.rawValue), limit])
                } else {
                    try connection.query(
                        "SELECT \(Self.outboxColumns) FROM outbox_jobs ORDER BY created_at DESC, id DESC LIMIT ?", [limit])
                }
            return try rows.map(Self.decodeOutboxJob)
        }
    }

    /// An administrator's retry of job `id` (``OutboxStore/retryOutboxJob(id:at:)``).
    public func retryOutboxJob(id: String, at now: Date) async throws -> Bool {
        let sql = """
            UPDATE outbox_jobs SET state = 'pending', next_attempt_at = ?, finished_at = NULL, lease_token = NULL,
                lease_expires_at = NULL
            WHERE id = ? AND ((state = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= ?))
                OR (state IN ('refused', 'given_up') AND secret = 0))
            """
        return try await write { connection in
            try connection.execute(sql, [Self.millis(now), .text(id), Self.millis(now)]) == 1
        }
    }

    /// The job with this id.
    public func outboxJob(id: String) async throws -> OutboxJob? {
        try await read { connection in
            try connection.query("SELECT \(Self.outboxColumns) FROM outbox_jobs WHERE id = ?", [.text(id)])
                .first.map(Self.decodeOutboxJob)
        }
    }

    /// The pending count and the oldest pending job's creation.
    public func outboxStats() async throws -> OutboxStats {
        try await read { connection in
            let row = try connection.query(
                "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM outbox_jobs WHERE state = 'pending'", []
            ).first
            return OutboxStats(
                pending: Int(row?.integer("pending") ?? 0), oldestPendingCreatedAt: row?.integer("oldest").map(Self.date))
        }
    }

    // MARK: - Rows

    /// The values of ``insertOutboxJob``.
    static func outboxJobValues(_ job: OutboxJob) -> [SQLValue] {
        [
            .text(job.id), .text(job.kind.rawValue), optionalText(job.uid?.rawValue), .text(Base64.encode(job.payload)),
            boolean(job.secret), boolean(job.sealed), millis(job.createdAt), .integer(Int64(job.attempts)),
            millis(job.nextAttemptAt), .text(job.state.rawValue), job.finishedAt.map(millis) ?? .null,
            optionalText(job.lastError),
        ]
    }

    static func decodeOutboxJob(_ row: SQLRow) throws -> OutboxJob {
        guard let payload = Base64.decode(try required(row, "payload")) else {
            throw SQLError(.other, "outbox_jobs.payload is not base64")
        }
        guard let state = OutboxState(rawValue: try required(row, "state")) else {
            throw SQLError(.other, "outbox_jobs.state is unknown")
        }
        var job = OutboxJob(
            kind: OutboxKind(try required(row, "kind")), uid: row.text("uid").map { AccountID($0) }, payload: payload,
            secret: row.integer("secret") == 1, createdAt: date(try requiredInteger(row, "created_at")),
            id: try required(row, "id"))
        job.sealed = row.integer("sealed") == 1
        job.attempts = Int(clamping: try requiredInteger(row, "attempts"))
        job.nextAttemptAt = date(try requiredInteger(row, "next_attempt_at"))
        job.state = state
        job.finishedAt = row.integer("finished_at").map(date)
        job.lastError = row.text("last_error")
        return job
    }

    /// `date` as stored (whole milliseconds).
    static func storedDate(_ date: Date) -> Date {
        Self.date(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// An error text cut to 500 characters.
    static func bounded(_ text: String) -> String { String(text.prefix(500)) }
}
