import BrokerModel
import Foundation

/// The account an identity is linked to, with all its identities, in one statement: a returning user's sign-in
/// reads its account this way inside its write transaction (one statement stepped twice for a one-identity
/// account, where ``loadAccount(in:sql:_:)`` takes two statements and four steps).
extension SQLBrokerStore {
    /// The identity columns of the joined loads, under names the account's columns do not use.
    static let linkedIdentityColumns = IdentityColumns(
        provider: "identity_provider", subject: "identity_subject", email: "identity_email",
        linkedAt: "identity_linked_at", providerToken: "identity_provider_token",
        credentialKind: "identity_credential_kind")

    /// One row per identity of the account that (`provider`, `subject`) is linked to, each with the account's
    /// columns; none when the identity is linked to no account. Sorted in Swift, as ``asStored(_:values:)`` sorts.
    static let selectAccountWithIdentitiesByIdentity =
        "SELECT \(accountColumns), \(joinedIdentityColumns) "
        + "FROM identities k JOIN accounts a ON a.uid = k.uid JOIN identities i ON i.uid = a.uid "
        + "WHERE k.provider = ? AND k.subject = ?"
    /// The select list of ``linkedIdentityColumns``, from the identities aliased `i`.
    static let joinedIdentityColumns =
        "i.provider AS identity_provider, i.subject AS identity_subject, "
        + "i.email AS identity_email, i.linked_at AS identity_linked_at, i.provider_token AS identity_provider_token, "
        + "i.credential_kind AS identity_credential_kind"

    /// The account (`provider`, `subject`) is linked to, with its identities in the order of
    /// ``loadAccount(in:sql:_:)``; nil when there is none.
    static func loadLinkedAccount(in connection: any SQLConnection, provider: ProviderID, subject: String) throws
        -> Account?
    {
        let rows = try connection.query(
            selectAccountWithIdentitiesByIdentity, [.text(provider.rawValue), .text(subject)])
        guard let first = rows.first else { return nil }
        return try joinedAccount(first, rows)
    }

    /// The account in `first`'s columns with the identities of `rows` (each row one identity, under
    /// ``linkedIdentityColumns``; a row whose identity columns are NULL, from a LEFT JOIN, has none), in the
    /// order of ``loadAccount(in:sql:_:)``.
    static func joinedAccount(_ first: SQLRow, _ rows: [SQLRow]) throws -> Account {
        var account = try decodeAccount(first)
        account.identities = try rows.compactMap { row in
            guard row.text(linkedIdentityColumns.provider) != nil else { return nil }
            return try decodeIdentity(row, names: linkedIdentityColumns)
        }
        .sorted { ($0.linkedAt, $0.provider.rawValue, $0.subject) < ($1.linkedAt, $1.provider.rawValue, $1.subject) }
        return account
    }
}
