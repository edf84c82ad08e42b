public import BrokerCore
import BrokerCrypto
public import BrokerIdentity
public import BrokerModel
import Foundation

/// Writes the accounts of a store in the JSON shape of `firebase auth:export --format=json` (contract
/// section 8): `broker admin export`, a backup and the way out of the broker.
///
/// The store is read a page at a time (``pageSize`` accounts, in (createdAt, uid) order) and each page is
/// written before the next is read, so memory stays one page whatever the number of users. An Argon2id hash
/// is written as the base64 of its PHC string with no `salt`; a hash imported and not yet upgraded as
/// Firebase writes it (`passwordHash`, `salt`) with its algorithm and parameters in the extension field
/// ``FirebaseUserRecord/hashConfigField``; the origin in ``FirebaseUserRecord/originField``; each identity
/// under its Firebase provider id with the broker's provider in ``FirebaseProviderUserInfo/providerField`` and the
/// kind of credential that linked it, when known, in ``FirebaseProviderUserInfo/kindField``.
/// A credential derived from a provider id (``PasswordCredential/isDerived``) is never written. With ``includesSecondFactors``
/// set, each account's second factors go in the extension field ``FirebaseUserRecord/secondFactorsField``
/// (``ExportedSecondFactors``): their secrets only with ``secrets`` (`--include-secrets`), and then sealed.
public struct FirebaseExporter: Sendable {
    /// What an export wrote.
    public struct Report: Sendable, Equatable {
        /// Users written.
        public var users = 0
        /// Password hashes left out because they were derived from a provider id.
        public var derivedHashesSkipped = 0
        /// Password hashes left out because they could not be read (neither Argon2id nor an imported form).
        public var unreadableHashesSkipped = 0
        /// Second factors written.
        public var secondFactors = 0

        /// A report of these counts.
        public init(
            users: Int = 0, derivedHashesSkipped: Int = 0, unreadableHashesSkipped: Int = 0, secondFactors: Int = 0
        ) {
            self.secondFactors = secondFactors
            self.users = users
            self.derivedHashesSkipped = derivedHashesSkipped
            self.unreadableHashesSkipped = unreadableHashesSkipped
        }
    }

    /// The accounts read per page.
    public static let pageSize = 500

    /// Where the accounts are read.
    public let store: AccountTransfer
    /// The Firebase provider id each identity is written under.
    public let providerName: @Sendable (Identity) -> String
    /// Whether the accounts' second factors are written.
    public var includesSecondFactors = false
    /// With `--include-secrets`, the broker's key: each factor's secret is written as stored (sealed with it) and
    /// the recovery codes' hashes sealed with it; nil: no secret material is written.
    public var secrets: OutboxCipher?

    /// An exporter of `store`'s accounts writing each identity under the Firebase id `registry` gives it
    /// (``ProviderRegistry/firebaseID(of:)-swift.method``: the kind that linked it says `oidc.<id>` or `<id>`, which
    /// the import reads back), or its provider's own id for a provider no longer enabled.
    public init(store: AccountTransfer, providers registry: ProviderRegistry) {
        self.store = store
        providerName = { registry.firebaseID(of: $0) }
    }

    /// An exporter of `store`'s accounts writing each identity under `firebaseNames`' name for its provider, else
    /// its provider's own id.
    public init(store: AccountTransfer, firebaseNames: [ProviderID: String] = [:]) {
        self.store = store
        providerName = { firebaseNames[$0.provider] ?? $0.provider.rawValue }
    }

    /// Writes the whole export through `write`, in pieces (the opening, one per user, the closing).
    /// `progress` is called with the number of users written after each page.
    public func export(
        to write: ([UInt8]) throws -> Void, progress: ((Int) -> Void)? = nil
    ) async throws -> Report {
        var report = Report()
        var cursor: PageCursor?
        try write(Array("{\"users\": [".utf8))
        // Every page but the last is full; the loop ends on the first page that is not.
        while true {
            let page = try await store.accounts(after: cursor, limit: Self.pageSize)
            let sets = includesSecondFactors ? try await store.secondFactorSets(of: page.map(\.id)) : [:]
            for account in page {
                var bytes = Array((report.users == 0 ? "\n" : ",\n").utf8)
                var user = userJSON(account, report: &report)
                if let set = sets[account.id], case .object(var members) = user {
                    members[FirebaseUserRecord.secondFactorsField] = try ExportedSecondFactors.json(
                        set, uid: account.id, secrets: secrets)
                    user = .object(members)
                    report.secondFactors += set.factors.count
                }
                bytes += user.serialized()
                try write(bytes)
                report.users += 1
            }
            progress?(report.users)
            guard page.count == Self.pageSize, let last = page.last else { break }
            cursor = PageCursor(at: last.createdAt, id: last.id.rawValue)
        }
        try write(Array("\n]}\n".utf8))
        return report
    }

    /// One user of the export, counting in `report` the hashes left out.
    public func userJSON(_ account: Account, report: inout Report) -> JSONValue {
        func millis(_ date: Date) -> JSONValue { .string(String(date.epochMilliseconds)) }
        var user: [String: JSONValue] = [
            "localId": .string(account.id.rawValue), "emailVerified": .bool(account.emailVerified),
            "disabled": .bool(account.disabled), "createdAt": millis(account.createdAt),
        ]
        if let email = account.email { user["email"] = .string(email) }
        if let name = account.displayName { user["displayName"] = .string(name) }
        if let photo = account.photoURL { user["photoUrl"] = .string(photo) }
        if let phone = account.phoneNumber { user["phoneNumber"] = .string(phone) }
        if let last = account.lastSignInAt { user["lastSignedInAt"] = millis(last) }
        if let claims = account.customClaims { user["customAttributes"] = .string(claims) }
        if let origin = account.origin { user[FirebaseUserRecord.originField] = .string(origin.rawValue) }

        var providers: [JSONValue] = []
        if let hash = account.password?.hash {
            if account.password?.isDerived == true {
                report.derivedHashesSkipped += 1
            } else if hash.hasPrefix("$argon2id$") {
                user["passwordHash"] = .string(Base64.encode(Array(hash.utf8)))
            } else if let imported = try? ImportedPasswordHash(encoded: hash) {
                let fields = imported.exportFields
                user["passwordHash"] = .string(Base64.encode(fields.passwordHash))
                if let salt = fields.salt, !salt.isEmpty { user["salt"] = .string(Base64.encode(salt)) }
                user[FirebaseUserRecord.hashConfigField] = fields.config
            } else {
                report.unreadableHashesSkipped += 1
            }
            if user["passwordHash"] != nil, let email = account.email {
                providers.append(["providerId": "password", "rawId": .string(email), "email": .string(email)])
            }
        }
        for identity in account.identities {
            var entry = Self.entry(identity, providerId: providerName(identity))
            entry[FirebaseProviderUserInfo.providerField] = .string(identity.provider.rawValue)
            if let kind = identity.kind { entry[FirebaseProviderUserInfo.kindField] = .string(kind.rawValue) }
            providers.append(.object(entry))
        }
        // Identities kept under their Firebase names at an import: written back under them, for admins again.
        for identity in account.imported?.otherIdentities ?? [] {
            providers.append(.object(Self.entry(identity, providerId: identity.provider.rawValue)))
        }
        if !providers.isEmpty { user["providerUserInfo"] = .array(providers) }
        return .object(user)
    }

    private static func entry(_ identity: Identity, providerId: String) -> [String: JSONValue] {
        var entry: [String: JSONValue] = [
            "providerId": .string(providerId), "rawId": .string(identity.subject),
            FirebaseProviderUserInfo.linkedAtField: .string(String(identity.linkedAt.epochMilliseconds)),
        ]
        if let email = identity.email { entry["email"] = .string(email) }
        return entry
    }
}
