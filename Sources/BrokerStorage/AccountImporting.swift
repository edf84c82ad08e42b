public import BrokerModel
import Foundation

/// Writing imported accounts in batches (contract section 8): many accounts per transaction, so an import of
/// 100,000 users costs a few hundred commits, not 100,000, and a server on the same database keeps serving
/// between them.
public protocol AccountImporting: Sendable {
    /// In one transaction, for each account in order: left alone when its uid is present (`unchanged`), not
    /// written when its email, phone number or an identity belongs to another uid (`emailTaken`, `phoneNumberTaken`, `identityTaken`), created
    /// otherwise, with its second factors and recovery codes in `secondFactors` (by uid; an account left alone
    /// or not written gets none). One outcome per account, in order. The accounts must not conflict with one another (the
    /// import's check rules that out); if the store refuses the batch anyway (`alreadyExists`, a writer
    /// elsewhere won a race), nothing of it is written. Each account created is `record`ed in the same
    /// transaction: its `user.created` event queued (``ChangeAnnouncing``), and its `import` audit event appended when
    /// the record is ``ImportRecord/audited``.
    func importAccounts(
        _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors], record: ImportRecord
    ) async throws -> [AccountImportOutcome]
}

extension AccountImporting {
    /// ``importAccounts(_:secondFactors:record:)`` by the command line, unaudited (``ImportRecord/cli``).
    public func importAccounts(
        _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors] = [:]
    ) async throws -> [AccountImportOutcome] {
        try await importAccounts(accounts, secondFactors: secondFactors, record: .cli)
    }

    /// ``importAccounts(_:secondFactors:record:)`` of accounts without second factors.
    public func importAccounts(_ accounts: [Account], record: ImportRecord) async throws -> [AccountImportOutcome] {
        try await importAccounts(accounts, secondFactors: [:], record: record)
    }
}

/// What an import writes of each account it creates, in the batch's transaction (contract sections 8 and 16).
public struct ImportRecord: Sendable, Equatable {
    /// The request that imports (`cli` for the command line).
    public var requestID: String
    /// Whether each account gets an `import` audit event (an administrator's import request); the command line's import
    /// of a whole project audits none, as it always has. Either way, the account's `user.created` event goes to the
    /// endpoints that take it.
    public var audited: Bool

    /// A record of the request `requestID`.
    public init(requestID: String, audited: Bool) {
        self.requestID = requestID
        self.audited = audited
    }

    /// The command line's import (`broker admin import`): unaudited.
    public static let cli = ImportRecord(requestID: "cli", audited: false)

    /// The write options of `account`'s creation at `now`: its `import` event (recorded only when ``audited``),
    /// announced through `routing`.
    func options(for account: Account, at now: Date, routing: (any ChangeAnnouncing)?) -> AccountWriteOptions {
        let event = AuditEvent(
            time: now, uid: account.id, action: .import, actor: .admin, requestID: requestID)
        var options = AccountWriteOptions(recording: [event]).announcing(routing, uid: account.id)
        if !audited { options.recording = [] }
        return options
    }
}
