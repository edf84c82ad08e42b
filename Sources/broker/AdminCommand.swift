import BrokerCore
import BrokerHTTP
import BrokerDrivers
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation

/// `broker admin …`: the admin API's actions straight on the database, also while a server runs on it.
enum AdminCommand {
    static let usage = """
        usage: broker admin users list [--provider P] [--email E] [--json]
               broker admin users show|disable|enable|delete|revoke-sessions UID [--json]
               broker admin users unlink UID PROVIDER [--json]
               broker admin custom-token UID [--claims JSON]
               broker admin keys list|rotate [--json]
               broker admin audit [--uid U] [--limit N] [--json]
               broker admin import firebase FILE [hash flags] [--map-provider A=B]... [--link-uid-prefix P=B]...
                 [--dry-run] [--json]
               broker admin export FILE [--include-secrets] [--json]
               broker admin outbox [--uid U] [--failing] [--json]
               broker admin outbox retry JOB_ID
        Every admin command takes --config and --database.
        """

    /// What goes wrong once a command runs (an unknown uid, a refusal): printed after `broker admin: `, exit
    /// status 1. A wrong command line is a ``CommandLineMisuse`` instead.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// The misuse of `words`, which ``CommandUsage/resolve(_:_:strict:)`` lets through only if the two disagree.
    static func misuse(_ words: [String]) -> CommandLineMisuse {
        CommandLineMisuse("broker admin \(words.joined(separator: " ")): not a command", usage: usage)
    }

    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        let words = options.positional
        guard let area = words.first else { throw misuse(words) }
        if area == "import" { return try await ImportCommand.run(options: options, environment: environment) }
        if area == "export" { return try await ExportCommand.run(options: options, environment: environment) }
        var config = try BrokerConfig(
            contentsOf: options.configPath, environment: environment, sections: Startup.configSections)
        let cipher = try OutboxCipher.fromEnvironment(environment)  // a key that is set must be a good one
        // The second-factor service opens the sealed authenticator secrets, to verify a code: no admin command
        // does (`users show` lists the factors from the store). Without a key these commands run without it;
        // `export --include-secrets` and an import of secrets ask for the key themselves.
        if cipher == nil { config.mfa.totpEnabled = false }
        let (store, database) = try await Startup.openStore(
            options.database, environment: environment, events: config.events)
        defer { Task { await database.close() } }
        // The serve command's composition: a revocation or deletion made here queues the uid's Firebase revocation
        // and what the account's providers ask (``AccountDeletion``), which a running server delivers. Nothing is
        // fetched here (no prefetch; the HTTP client is only handed to the providers).
        let client = try CurlHTTPClient()
        defer { Task { await client.shutdown() } }
        let services = try await BrokerServices.make(
            config: config, store: store, httpClient: client, passwords: MigratingPasswordHasher(), logger: Logger(),
            cipher: cipher, lifecycle: .none, prefetch: false,
            modules: try Startup.modules(config: config, client: client))
        let (admin, keys) = (services.admin, services.keys)
        let json = options.switches.contains("--json")
        do {
            switch (area, words.dropFirst().first) {
            case ("users", "list"?):
                try await list(
                    admin,
                    filter: AccountFilter(email: options.value("--email"), provider: options.value("--provider")),
                    json: json)
            case ("users", let action?)
            where ["show", "disable", "enable", "delete", "revoke-sessions", "unlink"].contains(action):
                guard words.count >= 3 else { throw misuse(words) }
                try await user(
                    admin, action: action, uid: AccountID(words[2]), extra: words.dropFirst(3).first, json: json)
            case ("keys", "list"?), ("keys", "rotate"?):
                try await keys.load()
                if words[1] == "rotate" {
                    try await keys.rotate()
                    try await store.appendAuditEvent(
                        AuditEvent(time: Date(), uid: nil, action: .rotateKey, actor: .admin, requestID: "cli"))
                }
                let current = try await keys.current().id
                let published = await keys.published()
                func state(_ key: SigningKey) -> String { key.id == current ? "signing" : "retired, published" }
                if json {
                    print(
                        pretty([
                            "keys": .array(
                                published.map { key in
                                    [
                                        "kid": .string(key.id.rawValue), "alg": .string(key.algorithm.rawValue),
                                        "createdAt": .string(key.createdAt.rfc3339),
                                        "state": .string(state(key)),
                                    ]
                                })
                        ]))
                } else {
                    let rows = published.map {
                        [$0.id.rawValue, $0.algorithm.rawValue, $0.createdAt.rfc3339, state($0)]
                    }
                    print(table([["KID", "ALG", "CREATED", "STATE"]] + rows))
                }
            case ("audit", nil):
                try await audit(admin, uid: options.value("--uid"), limit: options.value("--limit"), json: json)
            case ("outbox", nil):
                try await outbox(
                    admin, uid: options.value("--uid").map { AccountID($0) },
                    failing: options.switches.contains("--failing"), json: json)
            case ("outbox", "retry"?):
                guard words.count == 3 else { throw misuse(words) }
                let job = try await admin.retryOutboxJob(id: words[2])
                print(json ? pretty(job.json) : "job \(job.id) is due now; a running server delivers it")
            case ("custom-token", _):
                guard words.count == 2 else { throw misuse(words) }
                let claims = try options.value("--claims").map { text -> JSONValue in
                    guard let value = JSONValue.parse(Array(text.utf8)) else {
                        throw UsageError(description: "--claims must be JSON")
                    }
                    return value
                }
                print(try await admin.customToken(AccountID(words[1]), claims: claims, requestID: "cli"))
            default:
                throw misuse(words)
            }
        } catch let error as AccountError where error.code == .notFound {
            throw UsageError(description: "not found: \(words.dropFirst(2).joined(separator: " "))")
        } catch let error as APIError {
            throw UsageError(description: error.message)
        } catch let error as RequestError {
            throw UsageError(description: APIError.mapping(error)?.message ?? "\(error)")
        }
        return 0
    }

    /// `broker admin outbox`: the newest 1,000 jobs (of one uid, with `--uid`; only failing ones, with
    /// `--failing`: refused, given up, or pending after a failed attempt), never their payloads.
    private static func outbox(_ admin: AdminService, uid: AccountID?, failing: Bool, json: Bool) async throws {
        let jobs = try await admin.outboxJobs(uid: uid, failing: failing)
        if json {
            print(pretty(["jobs": .array(jobs.map(\.json))]))
            return
        }
        let header = ["ID", "KIND", "UID", "STATE", "ATTEMPTS", "CREATED", "NEXT ATTEMPT", "LAST ERROR"]
        let lines = jobs.map { job in
            [
                job.id, job.kind.rawValue, job.uid?.rawValue ?? "-", job.state.rawValue, String(job.attempts),
                job.createdAt.rfc3339, job.state == .pending ? job.nextAttemptAt.rfc3339 : "-",
                job.lastError.map { String($0.prefix(60)) } ?? "-",
            ]
        }
        print(table([header] + lines))
        print("\(jobs.count) job\(jobs.count == 1 ? "" : "s")")
    }

    private static func list(_ admin: AdminService, filter: AccountFilter, json: Bool) async throws {
        var cursor: String?
        var rows: [Account] = []
        repeat {
            let (page, next) = try await admin.listUsers(
                filter: filter, cursor: cursor, limit: AdminService.maximumLimit)
            rows += page
            cursor = next
        } while cursor != nil
        if json {
            print(pretty(["users": .array(rows.map(\.adminJSON))]))
            return
        }
        let header = ["UID", "EMAIL", "VERIFIED", "PROVIDERS", "DISABLED", "CREATED", "LAST SIGN-IN"]
        let lines = rows.map { account in
            [
                account.id.rawValue, account.email ?? "-", account.emailVerified ? "yes" : "no",
                // A guest (contract section 13) has no way to sign in but its sessions: shown as such.
                account.isAnonymous
                    ? "(guest)" : LinkingPolicy.signInMethods(of: account).joined(separator: ",").nonEmpty ?? "-",
                account.disabled ? "yes" : "no", account.createdAt.rfc3339, account.lastSignInAt?.rfc3339 ?? "-",
            ]
        }
        print(table([header] + lines))
        print("\(rows.count) user\(rows.count == 1 ? "" : "s")")
    }

    /// `admin audit`: the newest events first, at most `limit` (the admin API's bounds), optionally one user's.
    private static func audit(_ admin: AdminService, uid: String?, limit: String?, json: Bool) async throws {
        var count = AdminService.defaultLimit
        if let limit {
            guard let number = Int(limit), (1...AdminService.maximumLimit).contains(number) else {
                throw UsageError(description: "--limit must be a whole number from 1 to \(AdminService.maximumLimit)")
            }
            count = number
        }
        if let uid, uid.isEmpty { throw UsageError(description: "--uid needs a user id") }
        let (events, _) = try await admin.audit(uid: uid.map { AccountID($0) }, cursor: nil, limit: count)
        if json {
            print(pretty(["events": .array(events.map(\.json))]))
            return
        }
        let header = ["TIME", "UID", "ACTION", "PROVIDER", "ACTOR", "OUTCOME", "REQUEST", "CLIENT"]
        let rows = events.map { event in
            [
                event.time.rfc3339, event.uid?.rawValue ?? "-", event.action.rawValue, event.provider ?? "-",
                event.actor.rawValue,
                event.outcome, event.requestID, event.clientAddress ?? "-",
            ]
        }
        print(table([header] + rows))
        print("\(events.count) event\(events.count == 1 ? "" : "s")")
    }

    private static func user(
        _ admin: AdminService, action: String, uid: AccountID, extra: String?, json: Bool
    ) async throws {
        let account: Account?
        switch action {
        case "show": account = try await admin.user(uid)
        case "disable", "enable":
            account = try await admin.update(uid, AdminChange(disabled: action == "disable"), requestID: "cli")
        case "delete":
            try await admin.delete(uid, requestID: "cli")
            account = nil
        case "revoke-sessions":
            try await admin.revokeSessions(uid, requestID: "cli")
            account = nil
        default:  // unlink
            guard let provider = extra else { throw misuse(["users", action, uid.rawValue]) }
            account = try await admin.unlink(uid, provider: ProviderID(provider), requestID: "cli")
        }
        guard let account else {
            print(json ? pretty(["uid": .string(uid.rawValue), "done": .string(action)]) : "\(action): \(uid)")
            return
        }
        if json {
            print(pretty(account.adminJSON))
            return
        }
        var lines: [[String]] = [
            ["uid", account.id.rawValue], ["email", account.email ?? "-"],
            ["email verified", account.emailVerified ? "yes" : "no"], ["display name", account.displayName ?? "-"],
            ["disabled", account.disabled ? "yes" : "no"], ["created", account.createdAt.rfc3339],
            ["last sign-in", account.lastSignInAt?.rfc3339 ?? "-"],
            ["password", account.hasUsablePassword ? "yes" : "no"], ["custom claims", account.customClaims ?? "-"],
        ]
        for identity in account.identities {
            lines.append([
                "identity",
                "\(identity.provider.rawValue) \(identity.subject) \(identity.email ?? "") linked \(identity.linkedAt.rfc3339)",
            ])
        }
        let factors = try await admin.secondFactors(account.id)
        for factor in factors.factors {
            let enrolled = factor.enrolledAt?.rfc3339 ?? "-"
            lines.append([
                "second factor", "\(factor.type) \(factor.id) \(factor.displayName ?? "") enrolled \(enrolled)",
            ])
        }
        if !factors.factors.isEmpty { lines.append(["recovery codes left", String(factors.recoveryCodesLeft)]) }
        lines.append(["origin", account.origin?.rawValue ?? "-"])
        if let imported = account.imported {
            lines.append(["imported", "\(imported.importedAt.rfc3339) from \(imported.file) #\(imported.index)"])
            for identity in imported.otherIdentities {
                lines.append([
                    "imported identity",
                    "\(identity.provider.rawValue) \(identity.subject) \(identity.email ?? "") (not used to sign in)",
                ])
            }
        }
        print(table(lines))
    }

    /// Left-aligned columns separated by two spaces.
    static func table(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { column in
            rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func pretty(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? ""
    }
}

extension String {
    /// nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
