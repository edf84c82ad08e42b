public import BrokerCore
import BrokerModel
import Foundation

/// Firebase's admin `accounts:batchCreate` (the SDKs' `import_users`), mapped onto the migration's import
/// (contract section 8): the same plan per user (uid kept, identities mapped, the imported hash verified at
/// sign-in and upgraded to Argon2id), Firebase's per-user errors instead of the CLI's report.
extension AdminService {
    /// The most users one `batchCreate` takes.
    public static let maximumImportBatch = 1000

    /// One user `batchCreate` did not import: Firebase's `error: [{index, message}]`.
    public struct ImportFailure: Sendable, Equatable {
        /// The user's index in the request.
        public var index: Int
        /// Firebase's message: a code, then detail naming the field (never a value).
        public var message: String

        /// A failure of the user at `index`.
        public init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }

    /// Imports `users` (each with its index in the request; 1 to 1000 in all, else
    /// `MAXIMUM_USER_COUNT_EXCEEDED`) with `options` (the hash algorithm and the provider map). A user is
    /// refused, with its index, when its record cannot be planned (its hash does not fit the algorithm, or
    /// there is no algorithm), when it repeats an earlier
    /// user's uid, email, phone number or identity, or when its uid (`DUPLICATE_LOCAL_ID`), email
    /// (`DUPLICATE_EMAIL`), phone number (`PHONE_NUMBER_EXISTS`) or an identity (`DUPLICATE_RAW_ID`) is
    /// another account's. The others are written in one transaction, origin `import`, each audited as `import` and
    /// announced as `user.created` in it.
    public func importFirebaseAccounts(
        _ users: [(index: Int, record: FirebaseUserRecord)], options: FirebaseImportOptions, requestID: String
    ) async throws -> [ImportFailure] {
        guard (1...Self.maximumImportBatch).contains(users.count) else {
            throw AccountAdminError(.maximumUserCountExceeded, "at most \(Self.maximumImportBatch) users")
        }
        let now = clock.now
        var failures: [ImportFailure] = []
        var batch: [(index: Int, account: Account)] = []
        var uids: Set<AccountID> = []
        var emails: Set<String> = []
        var phones: Set<String> = []
        var identities: Set<String> = []
        for (index, record) in users {
            let plan: FirebaseImportPlan
            do {
                plan = try FirebaseImportPlan(record, options: options, importedAt: now)
            } catch let error as ImportedHashError where error == FirebaseImportPlan.needsHashFlags {
                failures.append(
                    ImportFailure(index: index, message: "MISSING_HASH_ALGORITHM : passwordHash needs hashAlgorithm"))
                continue
            } catch let error as ImportedHashError {
                failures.append(ImportFailure(index: index, message: "INVALID_PASSWORD_HASH : \(error.code.rawValue)"))
                continue
            }
            var account = plan.account
            let keys = account.identities.map { "\($0.provider.rawValue)\u{0}\($0.subject)" }
            let repeated: String? =
                if uids.contains(account.id) {
                    "DUPLICATE_LOCAL_ID : localId repeats an earlier user"
                } else if let email = account.email, emails.contains(email.lowercased()) {
                    "DUPLICATE_EMAIL : email repeats an earlier user"
                } else if let phone = account.phoneNumber, phones.contains(phone) {
                    "PHONE_NUMBER_EXISTS : phoneNumber repeats an earlier user"
                } else if keys.contains(where: identities.contains) {
                    "DUPLICATE_RAW_ID : providerUserInfo repeats an earlier user's identity"
                } else { nil }
            if let repeated {
                failures.append(ImportFailure(index: index, message: repeated))
                continue
            }
            uids.insert(account.id)
            if let email = account.email { emails.insert(email.lowercased()) }
            if let phone = account.phoneNumber { phones.insert(phone) }
            identities.formUnion(keys)
            if account.origin == nil { account.origin = .import }
            account.imported = AccountImport(
                importedAt: now, file: "batchCreate", index: index,
                otherIdentities: plan.otherIdentities.map { info in
                    Identity(
                        provider: ProviderID(info.providerId), subject: info.rawId, email: info.email,
                        linkedAt: info.linkedAt ?? account.createdAt)
                })
            batch.append((index, account))
        }
        let outcomes = try await importAccounts(batch.map(\.account), requestID: requestID)
        for (entry, outcome) in zip(batch, outcomes) {
            if let message = Self.importMessage(outcome) {
                failures.append(ImportFailure(index: entry.index, message: message))
            }
        }
        return failures.sorted { $0.index < $1.index }
    }

    /// Firebase's message for a user the store did not write; nil for one it did.
    private static func importMessage(_ outcome: AccountImportOutcome) -> String? {
        switch outcome {
        case .imported: nil
        case .unchanged: "DUPLICATE_LOCAL_ID : localId belongs to an existing account"
        case .emailTaken: "DUPLICATE_EMAIL : email exists in other account"
        case .phoneNumberTaken: "PHONE_NUMBER_EXISTS : phoneNumber exists in other account"
        case .identityTaken(let provider):
            "DUPLICATE_RAW_ID : the \(provider.rawValue) identity exists in other account"
        }
    }
}
