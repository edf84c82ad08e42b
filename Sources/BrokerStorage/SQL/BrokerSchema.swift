/// The broker's versioned database schema, shared by the SQLite and PostgreSQL drivers.
///
/// The SQL is portable: `TEXT`, `BIGINT` times in epoch milliseconds, `INTEGER` 0/1 booleans. Emails are
/// matched through `email_key`, the email lower-cased by Swift (never by SQL's `lower`, which differs between
/// databases), `UNIQUE` where not NULL (both databases allow many NULLs in a UNIQUE column). Migrations are
/// append-only: a released version is never edited, a change is a new version.
public enum BrokerSchema {
    /// The migrations for `dialect`, in version order.
    public static func migrations(for dialect: SQLDialect) -> [SQLMigration] {
        // Version 1 is the same text in both dialects; later versions may switch on `dialect`.
        [
            SQLMigration(version: 1, statements: version1), SQLMigration(version: 2, statements: version2),
            SQLMigration(version: 3, statements: version3), SQLMigration(version: 4, statements: version4),
            SQLMigration(version: 5, statements: version5), SQLMigration(version: 6, statements: version6),
            SQLMigration(version: 7, statements: version7), SQLMigration(version: 8, statements: version8),
            SQLMigration(version: 9, statements: version9), SQLMigration(version: 10, statements: version10),
            SQLMigration(version: 11, statements: version11), SQLMigration(version: 12, statements: version12),
            SQLMigration(version: 13, statements: version13), SQLMigration(version: 14, statements: version14),
            SQLMigration(version: 15, statements: version15), SQLMigration(version: 16, statements: version16),
            SQLMigration(version: 17, statements: version17),
            SQLMigration(version: 18, statements: version18),
            SQLMigration(version: 19, statements: version19),
            SQLMigration(version: 20, statements: version20),
            SQLMigration(version: 21, statements: version21),
            SQLMigration(version: 22, statements: version22(dialect)),
        ]
    }

    /// Version 22: fewer B-tree writes per sign-in (issue 35). The audit log is kept in `(at, id)` order, the order
    /// every reader walks it in (the admin listing newest first, the console's chart by time), so its own
    /// `audit_events_at` index goes, and `audit_events_action_at` with it (the chart reads the time range and keeps
    /// the `sign_in` events: its rows are most of the log). On SQLite the log becomes a `WITHOUT ROWID` table, stored
    /// in its primary key's B-tree alone (before: a rowid table beside the id's index), rebuilt with its rows;
    /// PostgreSQL swaps the primary key and drops the two indexes in place. A sign-in's audit event then writes 2
    /// B-tree entries instead of 5. (The refresh tokens stay a rowid table: as `WITHOUT ROWID`, keyed by the random
    /// token hash, they saved one more entry and cost more CPU than the audit log's change saved; bench/README.md.)
    private static func version22(_ dialect: SQLDialect) -> [String] {
        switch dialect {
        case .postgres:
            return [
                "ALTER TABLE audit_events DROP CONSTRAINT audit_events_pkey",
                "ALTER TABLE audit_events ADD PRIMARY KEY (at, id)",
                "DROP INDEX audit_events_at",
                "DROP INDEX audit_events_action_at",
            ]
        case .sqlite:
            let audit = "id, at, uid, action, provider, actor, outcome, request_id, client_address, user_agent"
            return [
                """
                CREATE TABLE audit_events_v22 (
                    id TEXT NOT NULL,
                    at BIGINT NOT NULL,
                    uid TEXT,
                    action TEXT NOT NULL,
                    provider TEXT,
                    actor TEXT NOT NULL,
                    outcome TEXT NOT NULL,
                    request_id TEXT NOT NULL,
                    client_address TEXT,
                    user_agent TEXT,
                    PRIMARY KEY (at, id)
                ) WITHOUT ROWID
                """,
                "INSERT INTO audit_events_v22 (\(audit)) SELECT \(audit) FROM audit_events",
                "DROP TABLE audit_events",
                "ALTER TABLE audit_events_v22 RENAME TO audit_events",
                "CREATE INDEX audit_events_uid ON audit_events (uid, at, id)",
            ]
        }
    }

    /// Version 21: the address an email change's code sets (contract section 9): the new address of a
    /// `verifyAndChangeEmail` code, the old one of a `recoverEmail` code, as the user spelled it (`email_key` is
    /// lower-cased); NULL for the other codes.
    private static let version21 = [
        "ALTER TABLE oob_codes ADD COLUMN target_email TEXT"
    ]

    /// Version 15: guests (contract section 13): whether an account is a guest's (0 for every account stored
    /// before), with the index the sweep of inactive guests reads through; the guests made per client address (the
    /// hourly limit, shared by every instance); and named leases, so that one instance at a time runs a periodic
    /// job (the sweep) whatever the number of instances on one database.
    private static let version15 = [
        "ALTER TABLE accounts ADD COLUMN anonymous INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX accounts_anonymous ON accounts (anonymous, created_at)",
        """
        CREATE TABLE guest_creations (
            address TEXT NOT NULL,
            created_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX guest_creations_address ON guest_creations (address, created_at)",
        "CREATE INDEX guest_creations_at ON guest_creations (created_at)",
        """
        CREATE TABLE job_leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
    ]

    /// Version 20: passkeys (contract section 15): each credential by its id (base64url, registered once), its
    /// account, the account's user handle, the COSE public key (base64url), the signature counter, the transports
    /// (comma-separated), the backup flags 0/1; and the challenges of the ceremonies in flight (by SHA-256 hex,
    /// single-use, bound to their ceremony and, for a registration, their account).
    private static let version20 = [
        """
        CREATE TABLE passkeys (
            id TEXT PRIMARY KEY,
            uid TEXT NOT NULL,
            user_handle TEXT NOT NULL,
            public_key TEXT NOT NULL,
            algorithm BIGINT NOT NULL,
            sign_count BIGINT NOT NULL,
            transports TEXT NOT NULL,
            name TEXT,
            created_at BIGINT NOT NULL,
            last_used_at BIGINT,
            backup_eligible INTEGER NOT NULL,
            backed_up INTEGER NOT NULL
        )
        """,
        "CREATE INDEX passkeys_uid ON passkeys (uid, created_at)",
        """
        CREATE TABLE passkey_challenges (
            challenge_hash TEXT PRIMARY KEY,
            ceremony TEXT NOT NULL,
            uid TEXT,
            user_handle TEXT,
            email TEXT,
            display_name TEXT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX passkey_challenges_expires ON passkey_challenges (expires_at)",
    ]

    /// Version 19: when a refresh token that is not rotated (a session of a listener whose clients keep their
    /// first refresh token) was last exchanged for ID tokens: a guest refreshing that way is active, and the
    /// console shows the use.
    private static let version19 = [
        "ALTER TABLE refresh_tokens ADD COLUMN used_at BIGINT",
    ]

    /// Version 18: the OpenID Connect providers managed at run time (contract section 11), shared by every
    /// instance: the client secret sealed with `BROKER_ENCRYPTION_KEY` (NULL when none), `response_id_token` and
    /// `response_code` 0/1 for whether the provider answers with an ID token, with a code.
    private static let version18 = [
        """
        CREATE TABLE oidc_providers (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL,
            issuer TEXT NOT NULL,
            display_name TEXT,
            enabled INTEGER NOT NULL,
            sealed_client_secret TEXT,
            response_id_token INTEGER NOT NULL,
            response_code INTEGER NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """
    ]

    /// Version 16: the kind of credential that linked an identity (`idToken`, `accessToken`; NULL for identities
    /// stored before, and for those an import or a uid prefix linked without saying), by which a surface may name
    /// the identity.
    private static let version16 = [
        "ALTER TABLE identities ADD COLUMN credential_kind TEXT"
    ]

    /// Version 17: second factors (contract section 14): authenticator apps (the secret sealed with
    /// `BROKER_ENCRYPTION_KEY`; `enrolled_at` NULL while the enrolment is pending; `last_used_step` the time step of
    /// the last code that worked, so a code works once), recovery codes (SHA-256 hex, deleted once used), and the
    /// sign-ins waiting for their second factor (by a hash of the pending credential, with the wrong codes given).
    private static let version17 = [
        """
        CREATE TABLE second_factors (
            id TEXT PRIMARY KEY,
            uid TEXT NOT NULL,
            type TEXT NOT NULL,
            display_name TEXT,
            secret TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            enrolled_at BIGINT,
            last_used_step BIGINT
        )
        """,
        "CREATE INDEX second_factors_uid ON second_factors (uid, created_at)",
        """
        CREATE TABLE recovery_codes (
            uid TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (uid, code_hash)
        )
        """,
        """
        CREATE TABLE mfa_pending_sign_ins (
            credential_hash TEXT PRIMARY KEY,
            uid TEXT NOT NULL,
            sign_in_provider TEXT NOT NULL,
            surface TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            failures INTEGER NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX mfa_pending_sign_ins_uid ON mfa_pending_sign_ins (uid)",
        "CREATE INDEX mfa_pending_sign_ins_expires ON mfa_pending_sign_ins (expires_at)",
    ]

    /// Version 14: each uid's custom-token cutoff (epoch milliseconds of a whole second): a custom token
    /// minted in that second or before signs nothing in. Set by a takeover, a password reset and a deletion, and
    /// kept by uid, with no foreign key, so that it outlives the deleted account.
    private static let version14 = [
        """
        CREATE TABLE custom_token_cutoffs (
            uid TEXT PRIMARY KEY,
            cut_off_at BIGINT NOT NULL
        )
        """
    ]

    /// Version 13: when a session's sign-in happened (epoch milliseconds; its ID tokens' `auth_time`), kept by
    /// every token of the session (NULL for sessions stored before: their id begins with their creation time); and
    /// the index a password change finds the account's outstanding reset codes through.
    private static let version13 = [
        "ALTER TABLE refresh_tokens ADD COLUMN auth_time BIGINT",
        "CREATE INDEX oob_codes_uid ON oob_codes (uid, action)",
    ]

    /// Version 12: an account's phone number (E.164, an attribute accounts are shown with and looked up by; no
    /// SMS), unique where not NULL, like the email.
    private static let version12 = [
        "ALTER TABLE accounts ADD COLUMN phone_number TEXT",
        "CREATE UNIQUE INDEX accounts_phone_number ON accounts (phone_number)",
    ]

    /// Version 11: the listener a session was made on (`native`, or another listener's): a session's refresh token works only where the session began; and the claims its ID tokens carry
    /// besides the account's (a custom token's `claims`).
    private static let version11 = [
        "ALTER TABLE refresh_tokens ADD COLUMN surface TEXT NOT NULL DEFAULT 'native'",
        "ALTER TABLE refresh_tokens ADD COLUMN claims TEXT",
    ]

    /// Version 10: the provider whose "the user left" event disabled an account (NULL: enabled, or disabled
    /// by an administrator), so that provider's next sign-in enables it again.
    private static let version10 = [
        "ALTER TABLE accounts ADD COLUMN disabled_by TEXT"
    ]

    /// Version 9: the admin console's sessions (by a keyed hash of the cookie), and the index the
    /// dashboard's sign-in counts read the audit log through.
    private static let version9 = [
        """
        CREATE TABLE console_sessions (
            token_hash TEXT PRIMARY KEY,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX console_sessions_expires ON console_sessions (expires_at)",
        "CREATE INDEX audit_events_action_at ON audit_events (action, at)",
    ]

    /// Version 8: a token a provider gave for an identity (a refresh token, revoked on deletion), sealed
    /// with AES-256-GCM under `BROKER_ENCRYPTION_KEY` and stored as base64; never in clear.
    private static let version8 = [
        "ALTER TABLE identities ADD COLUMN provider_token TEXT"
    ]

    /// Version 7: where the request behind an audit event came from (client address, user agent; NULL for the
    /// CLI's events and for events stored before).
    private static let version7 = [
        "ALTER TABLE audit_events ADD COLUMN client_address TEXT",
        "ALTER TABLE audit_events ADD COLUMN user_agent TEXT",
    ]

    /// Version 5: where an account came from (`signup`, a provider, `import`; NULL for older accounts), and
    /// for imported accounts when, from which file and index, and their other providers' identities (JSON).
    private static let version5 = [
        "ALTER TABLE accounts ADD COLUMN origin TEXT",
        "ALTER TABLE accounts ADD COLUMN imported_at BIGINT",
        "ALTER TABLE accounts ADD COLUMN import_file TEXT",
        "ALTER TABLE accounts ADD COLUMN import_index BIGINT",
        "ALTER TABLE accounts ADD COLUMN import_identities TEXT",
    ]

    /// Version 6: the durable outbox (mails and provider calls delivered later), and the email flows' codes and
    /// per-address mail counts. `payload` is base64 (an
    /// AES-256-GCM box when `sealed`); `lease_token` and `lease_expires_at` mark the one worker holding a job.
    private static let version6 = [
        """
        CREATE TABLE outbox_jobs (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            uid TEXT,
            payload TEXT NOT NULL,
            secret INTEGER NOT NULL DEFAULT 0,
            sealed INTEGER NOT NULL DEFAULT 0,
            created_at BIGINT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at BIGINT NOT NULL,
            state TEXT NOT NULL,
            lease_token TEXT,
            lease_expires_at BIGINT,
            finished_at BIGINT,
            last_error TEXT
        )
        """,
        "CREATE INDEX outbox_jobs_due ON outbox_jobs (state, next_attempt_at, id)",
        "CREATE INDEX outbox_jobs_uid ON outbox_jobs (uid, created_at, id)",
        "CREATE INDEX outbox_jobs_created ON outbox_jobs (created_at, id)",
        // The email flows (contract section 9): codes stored as SHA-256 hashes, and the mails asked for per
        // address, counted whether or not an account holds it.
        """
        CREATE TABLE oob_codes (
            code_hash TEXT PRIMARY KEY,
            action TEXT NOT NULL,
            uid TEXT NOT NULL,
            email_key TEXT NOT NULL,
            continue_url TEXT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX oob_codes_expires ON oob_codes (expires_at)",
        """
        CREATE TABLE mail_requests (
            email_key TEXT NOT NULL,
            requested_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX mail_requests_key ON mail_requests (email_key, requested_at)",
    ]

    /// Version 4: ID tokens issued before an account's sessions were revoked stop authenticating.
    private static let version4 = ["ALTER TABLE accounts ADD COLUMN tokens_valid_after BIGINT"]

    /// Version 3: the audit log, and the index behind admin listings.
    private static let version3 = [
        """
        CREATE TABLE audit_events (
            id TEXT PRIMARY KEY,
            at BIGINT NOT NULL,
            uid TEXT,
            action TEXT NOT NULL,
            provider TEXT,
            actor TEXT NOT NULL,
            outcome TEXT NOT NULL,
            request_id TEXT NOT NULL
        )
        """,
        "CREATE INDEX audit_events_at ON audit_events (at, id)",
        "CREATE INDEX audit_events_uid ON audit_events (uid, at, id)",
        "CREATE INDEX accounts_created ON accounts (created_at, uid)",
    ]

    /// Version 2: password credentials derived from a provider id, and failed password sign-ins.
    private static let version2 = [
        "ALTER TABLE accounts ADD COLUMN password_derived INTEGER NOT NULL DEFAULT 0",
        """
        CREATE TABLE password_failures (
            email_key TEXT NOT NULL,
            failed_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX password_failures_key ON password_failures (email_key, failed_at)",
        "CREATE INDEX password_failures_at ON password_failures (failed_at)",
    ]

    private static let version1 = [
        """
        CREATE TABLE accounts (
            uid TEXT PRIMARY KEY,
            email TEXT,
            email_key TEXT UNIQUE,
            email_verified INTEGER NOT NULL DEFAULT 0,
            display_name TEXT,
            photo_url TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at BIGINT NOT NULL,
            last_sign_in_at BIGINT,
            password_hash TEXT,
            custom_claims TEXT
        )
        """,
        """
        CREATE TABLE identities (
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            uid TEXT NOT NULL REFERENCES accounts (uid) ON DELETE CASCADE,
            email TEXT,
            linked_at BIGINT NOT NULL,
            PRIMARY KEY (provider, subject)
        )
        """,
        "CREATE INDEX identities_uid ON identities (uid)",
        """
        CREATE TABLE used_marks (
            key TEXT PRIMARY KEY,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX used_marks_expires_at ON used_marks (expires_at)",
        """
        CREATE TABLE refresh_tokens (
            token_hash TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            uid TEXT NOT NULL,
            sign_in_provider TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            rotated_at BIGINT,
            revoked_at BIGINT
        )
        """,
        "CREATE INDEX refresh_tokens_session_id ON refresh_tokens (session_id)",
        "CREATE INDEX refresh_tokens_uid ON refresh_tokens (uid)",
        """
        CREATE TABLE signing_keys (
            kid TEXT PRIMARY KEY,
            algorithm TEXT NOT NULL,
            private_key_pem TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            retired_at BIGINT
        )
        """,
    ]
}
