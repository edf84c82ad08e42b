import BrokerCore
public import BrokerIdentity
public import BrokerModel
public import Foundation

/// An ``Account`` as Firebase's `UserInfo` JSON (the `users` items of `accounts:lookup`, `getAccountInfo` and the
/// admin calls): `localId`, `email`, `emailVerified`, `displayName`, `photoUrl`, `disabled`, `createdAt` and
/// `lastLoginAt` (epoch milliseconds as strings), `lastRefreshAt` (RFC 3339), `validSince` (epoch seconds as a
/// string), `customAttributes` (a JSON string), `providerUserInfo`, and `passwordHash`.
public struct FirebaseUserInfo: Sendable {
    /// Who the record is for.
    public enum View: Sendable, Equatable {
        /// The signed-in user (client `lookup`): a password shows as the redacted placeholder only.
        case client
        /// An administrator (`Bearer owner`): ``FirebaseUserInfo/addAdminFields(to:)`` adds what only admins
        /// see (the stored hash and salt for `batchGet`, the phone number).
        case admin
    }

    /// The placeholder Firebase answers for a password hash on client calls (base64 of `REDACTED`).
    public static let redactedPasswordHash = "UkVEQUNURUQ="
    /// Firebase's provider id of email and password.
    public static let passwordProviderID = "password"

    /// The account.
    public var account: Account
    /// Firebase's provider id for an identity (``ProviderRegistry/firebaseID(of:)-swift.method``).
    public var providerName: @Sendable (Identity) -> String

    /// Creates the record of `account`, naming identities as `providers` do.
    public init(_ account: Account, providers: ProviderRegistry) {
        self.account = account
        providerName = { providers.firebaseID(of: $0) }
    }

    /// Creates the record of `account` with an explicit identity naming.
    public init(_ account: Account, providerName: @escaping @Sendable (Identity) -> String) {
        self.account = account
        self.providerName = providerName
    }

    /// Epoch milliseconds as a string, as Firebase writes `createdAt`.
    public static func millisString(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down))) }

    /// The record as JSON for `view`.
    public func json(_ view: View) -> JSONValue {
        var fields: [String: JSONValue] = [
            "localId": .string(account.id.rawValue),
            "emailVerified": .bool(account.emailVerified),
            "disabled": .bool(account.disabled),
            "createdAt": .string(Self.millisString(account.createdAt)),
            "validSince": .string(String(Int64((account.tokensValidAfter ?? account.createdAt).timeIntervalSince1970))),
            "providerUserInfo": .array(providerUserInfo),
        ]
        if let email = account.email { fields["email"] = .string(email) }
        if let name = account.displayName { fields["displayName"] = .string(name) }
        if let photo = account.photoURL { fields["photoUrl"] = .string(photo) }
        if let last = account.lastSignInAt {
            fields["lastLoginAt"] = .string(Self.millisString(last))
            fields["lastRefreshAt"] = .string(RFC3339.format(last, milliseconds: true))
        }
        if let claims = account.customClaims { fields["customAttributes"] = .string(claims) }
        if account.hasUsablePassword { fields["passwordHash"] = .string(Self.redactedPasswordHash) }
        if view == .admin { addAdminFields(to: &fields) }
        return .object(fields)
    }

    /// `providerUserInfo`: one item per linked identity, and `password` for an account with a usable password.
    public var providerUserInfo: [JSONValue] {
        var items: [JSONValue] = []
        if account.hasUsablePassword, let email = account.email {
            items.append([
                "providerId": .string(Self.passwordProviderID), "rawId": .string(email), "federatedId": .string(email),
                "email": .string(email),
            ])
        }
        for identity in account.identities {
            var item: [String: JSONValue] = [
                "providerId": .string(providerName(identity)), "rawId": .string(identity.subject),
                "federatedId": .string(identity.subject),
            ]
            if let email = identity.email { item["email"] = .string(email) }
            if let name = account.displayName { item["displayName"] = .string(name) }
            if let photo = account.photoURL { item["photoUrl"] = .string(photo) }
            items.append(.object(item))
        }
        return items
    }
}
