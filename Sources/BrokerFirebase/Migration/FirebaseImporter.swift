public import BrokerCore
public import BrokerModel
public import Foundation

/// Imports a Firebase export into an account store (contract section 8), in two passes: ``check(_:)`` reads
/// and plans every user without touching the store, then ``run(_:dryRun:batchSize:progress:)`` writes the
/// users in batches (``defaultBatchSize`` per transaction), so a running server keeps serving between them and
/// an interrupted import is finished by running it again (users already present are "unchanged").
///
/// A user is refused, reported by index, when its record cannot be imported, when its uid, email or an
/// identity repeats an earlier user of the file, or when its email or an identity belongs to another uid in
/// the store. Emails are compared case-insensitively. Imported accounts have the origin `import` and their
/// ``AccountImport`` (when, file, index, and the identities of providers the broker does not sign in with).
public struct FirebaseImporter: Sendable {
    /// One refused user.
    public struct Failure: Sendable, Equatable {
        /// The user's 0-based index in the file's `users` array.
        public var index: Int
        /// The user's `localId`, when it has a usable one.
        public var uid: String?
        /// Why: a stable code, then a detail naming the field (never a value).
        public var reason: String

        /// A failure of the user at `index`.
        public init(index: Int, uid: String?, reason: String) {
            self.index = index
            self.uid = uid
            self.reason = reason
        }
    }

    /// What an import did (or, dry, would do).
    public struct Report: Sendable, Equatable {
        /// Users created.
        public var imported = 0
        /// Users already present with the same uid, left as they are.
        public var unchanged = 0
        /// Users refused, by index.
        public var failed: [Failure] = []
        /// Second factors restored with the users imported (exported with `--include-secrets`).
        public var secondFactors = 0
        /// Second factors of the users imported that were exported without their secrets: left out.
        public var secondFactorsLeftOut = 0

        /// A report of these counts.
        public init(
            imported: Int = 0, unchanged: Int = 0, failed: [Failure] = [], secondFactors: Int = 0,
            secondFactorsLeftOut: Int = 0
        ) {
            self.imported = imported
            self.unchanged = unchanged
            self.failed = failed
            self.secondFactors = secondFactors
            self.secondFactorsLeftOut = secondFactorsLeftOut
        }

        /// 0 when nothing was refused, 1 when something was.
        public var exitStatus: Int32 { failed.isEmpty ? 0 : 1 }

        /// `{"imported": N, "unchanged": N, "failed": [{"index", "uid", "reason"}]}`, with `secondFactors` and
        /// `secondFactorsLeftOut` when they are not 0.
        public var json: JSONValue {
            var members: [String: JSONValue] = [
                "imported": .int(Int64(imported)), "unchanged": .int(Int64(unchanged)),
                "failed": .array(failed.map { failure in
                    .object([
                        "index": .int(Int64(failure.index)), "uid": failure.uid.map(JSONValue.string) ?? .null,
                        "reason": .string(failure.reason),
                    ])
                }),
            ]
            if secondFactors > 0 { members["secondFactors"] = .int(Int64(secondFactors)) }
            if secondFactorsLeftOut > 0 { members["secondFactorsLeftOut"] = .int(Int64(secondFactorsLeftOut)) }
            return .object(members)
        }
    }

    /// The result of the first pass: the users refused by the file alone.
    public struct Check: Sendable, Equatable {
        /// Users the file itself rules out, by index, in order.
        public var failed: [Failure]
        /// The number of users in the file.
        public var total: Int
    }

    /// Where the accounts are written.
    public let store: AccountTransfer
    /// The flags.
    public let options: FirebaseImportOptions
    /// The time of the import (for accounts and identities the export gives no time).
    public let clock: any Clock
    /// The export file's name, kept with each imported account (``AccountImport/file``).
    public let source: String
    /// The broker's key (`BROKER_ENCRYPTION_KEY`): second factors exported with their secrets open with it.
    public let cipher: OutboxCipher?

    /// An importer into `store` of the file named `source`; `cipher`, the broker's key, restores second factors
    /// exported with their secrets.
    public init(
        store: AccountTransfer, options: FirebaseImportOptions, clock: any Clock,
        source: String = "", cipher: OutboxCipher? = nil
    ) {
        self.cipher = cipher
        self.store = store
        self.options = options
        self.clock = clock
        self.source = source
    }

    /// The first pass: decodes and plans every user, without the store. Throws
    /// ``FirebaseImportPlan/needsHashFlags`` (naming the first such user) when a password hash cannot be
    /// read without `--hash-algo`: the file is then not to be imported at all.
    public func check(_ export: FirebaseExport) throws -> Check {
        try Self.check(export, options: options, importedAt: clock.now, cipher: cipher)
    }

    /// ``check(_:)`` without a store: what the file alone rules out, with `options` and the broker's key `cipher`,
    /// planned at `importedAt`. Throws ``FirebaseImportPlan/needsEncryptionKey`` too (second factors exported with
    /// their secrets, and no key).
    public static func check(
        _ export: FirebaseExport, options: FirebaseImportOptions, importedAt now: Date, cipher: OutboxCipher? = nil
    ) throws -> Check {
        var failed: [Failure] = []
        var uids: Set<String> = []
        var emails: Set<String> = []
        var identities: Set<String> = []
        var phones: Set<String> = []
        for index in 0..<export.count {
            let plan: FirebaseImportPlan
            do {
                plan = try FirebaseImportPlan(
                    export.user(at: index), options: options, importedAt: now, cipher: cipher)
            } catch let error as FirebaseUserError {
                failed.append(Failure(index: index, uid: nil, reason: error.description))
                continue
            } catch let error as ImportedHashError where error == FirebaseImportPlan.needsHashFlags {
                throw ImportedHashError(.missingParameter, "user \(index): \(error.detail)")
            } catch let error as ImportedHashError where error == FirebaseImportPlan.needsEncryptionKey {
                throw error
            } catch let error as ImportedHashError {
                failed.append(Failure(index: index, uid: try? export.user(at: index).localId, reason: error.description))
                continue
            }
            let account = plan.account
            let keys = account.identities.map { "\($0.provider.rawValue)\u{0}\($0.subject)" }
            let reason: String? =
                if uids.contains(account.id.rawValue) { "DUPLICATE_UID: localId repeats an earlier user" }
                else if let email = account.email, emails.contains(email.lowercased()) {
                    "DUPLICATE_EMAIL: email repeats an earlier user"
                } else if keys.contains(where: identities.contains) {
                    "DUPLICATE_IDENTITY: providerUserInfo repeats an earlier user's identity"
                } else if let phone = account.phoneNumber, phones.contains(phone) {
                    "DUPLICATE_PHONE_NUMBER: phoneNumber repeats an earlier user"
                } else { nil }
            if let reason {
                failed.append(Failure(index: index, uid: account.id.rawValue, reason: reason))
                continue
            }
            uids.insert(account.id.rawValue)
            if let email = account.email { emails.insert(email.lowercased()) }
            identities.formUnion(keys)
            if let phone = account.phoneNumber { phones.insert(phone) }
        }
        return Check(failed: failed, total: export.count)
    }

    /// The users written per transaction by default.
    public static let defaultBatchSize = 500

    /// Both passes: ``check(_:)``, then the users not refused are written `batchSize` at a time, each batch in
    /// one transaction (``AccountImporting``): a user already present is left as it is (`unchanged`), one
    /// whose email or an identity belongs to another uid is refused. `dryRun` looks up but writes nothing.
    /// `progress` is called with (users done, total) after every batch. An import that stops part way (a
    /// crash, a database gone) has written whole batches only, and is finished by running it again.
    public func run(
        _ export: FirebaseExport, dryRun: Bool = false, batchSize: Int = FirebaseImporter.defaultBatchSize,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> Report {
        let check = try check(export)
        var report = Report()
        var refused = Dictionary(uniqueKeysWithValues: check.failed.map { ($0.index, $0) })
        let now = clock.now
        let step = max(1, batchSize)
        var batch: [(index: Int, account: Account, plan: FirebaseImportPlan)] = []
        for index in 0..<export.count {
            if refused[index] == nil {
                // Planned again rather than kept from the check: memory stays one batch, not the file.
                let plan = try FirebaseImportPlan(
                    export.user(at: index), options: options, importedAt: now, cipher: cipher)
                var account = plan.account
                if account.origin == nil { account.origin = .import }
                account.imported = AccountImport(
                    importedAt: now, file: source, index: index,
                    otherIdentities: plan.otherIdentities.map { info in
                        Identity(
                            provider: ProviderID(info.providerId), subject: info.rawId, email: info.email,
                            linkedAt: info.linkedAt ?? account.createdAt)
                    })
                batch.append((index, account, plan))
            }
            guard (index + 1) % step == 0 || index + 1 == export.count else { continue }
            var sets: [AccountID: AccountSecondFactors] = [:]
            for entry in batch { sets[entry.account.id] = entry.plan.secondFactors }
            let outcomes = try await write(batch.map(\.account), secondFactors: sets, dryRun: dryRun)
            for (entry, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .imported:
                    report.imported += 1
                    report.secondFactors += entry.plan.secondFactors?.factors.count ?? 0
                    report.secondFactorsLeftOut += entry.plan.secondFactorsLeftOut
                case .unchanged: report.unchanged += 1
                case .refused(let reason): refused[entry.index] = Failure(index: entry.index, uid: entry.account.id.rawValue, reason: reason)
                }
            }
            batch.removeAll(keepingCapacity: true)
            progress?(index + 1, export.count)
        }
        report.failed = refused.values.sorted { $0.index < $1.index }
        return report
    }

    private enum Outcome {
        case imported, unchanged
        case refused(String)
    }

    /// One batch: in one transaction, or (dry, or after the store refused the batch because another writer
    /// won a race) account by account.
    private func write(
        _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors], dryRun: Bool
    ) async throws -> [Outcome] {
        guard !accounts.isEmpty else { return [] }
        if !dryRun {
            if let outcomes = try await store.importAccounts(accounts, secondFactors: secondFactors) {
                return outcomes.map(Self.outcome)
            }
            // Nothing of the batch was written: decide each account again against what is there now.
        }
        var outcomes: [Outcome] = []
        for account in accounts {
            outcomes.append(try await write(account, secondFactors: secondFactors[account.id], dryRun: dryRun))
        }
        return outcomes
    }

    /// The report's outcome of what the store did with an account.
    private static func outcome(_ stored: AccountImportOutcome) -> Outcome {
        switch stored {
        case .imported: .imported
        case .unchanged: .unchanged
        case .emailTaken: .refused(emailTaken)
        case .phoneNumberTaken: .refused(phoneNumberTaken)
        case .identityTaken(let provider): .refused(identityTaken(provider))
        }
    }

    private static let emailTaken = "EMAIL_EXISTS: the email belongs to another user"
    private static let phoneNumberTaken = "PHONE_NUMBER_EXISTS: the phone number belongs to another user"
    private static func identityTaken(_ provider: ProviderID) -> String {
        "IDENTITY_EXISTS: the \(provider.rawValue) identity belongs to another user"
    }

    private func write(
        _ account: Account, secondFactors: AccountSecondFactors?, dryRun: Bool
    ) async throws -> Outcome {
        if let reason = try await conflict(account) { return reason }
        if dryRun { return .imported }
        // As a batch of one: the account's event is queued with it, and its second factors written with it.
        guard
            let outcomes = try await store.importAccounts(
                [account], secondFactors: secondFactors.map { [account.id: $0] } ?? [:])
        else {
            // Someone else wrote meanwhile (a sign-in, another import): decide again against what is there now.
            return try await conflict(account) ?? .refused("ALREADY_EXISTS: email or identity taken meanwhile")
        }
        return outcomes.first.map(Self.outcome) ?? .refused("ALREADY_EXISTS: email or identity taken meanwhile")
    }

    /// `unchanged` when the uid is present; `refused` when its email or an identity is another uid's.
    private func conflict(_ account: Account) async throws -> Outcome? {
        if try await store.account(id: account.id) != nil { return .unchanged }
        if let email = account.email, let owner = try await store.account(email: email), owner.id != account.id {
            return .refused(Self.emailTaken)
        }
        if let phone = account.phoneNumber, let owner = try await store.account(phoneNumber: phone),
            owner.id != account.id
        {
            return .refused(Self.phoneNumberTaken)
        }
        for identity in account.identities {
            if let owner = try await store.account(provider: identity.provider, subject: identity.subject),
                owner.id != account.id
            {
                return .refused(Self.identityTaken(identity.provider))
            }
        }
        return nil
    }
}
