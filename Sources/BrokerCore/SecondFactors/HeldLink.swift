import Foundation

/// A link held for the second factor (contract section 14): a provider sign-in that would link a new identity to
/// an account with a second factor stores nothing when it answers `MFA_REQUIRED`; the identity to link travels,
/// sealed with `BROKER_ENCRYPTION_KEY`, inside the pending credential, and the completed second factor links it in
/// its own transaction, the premises of the link checked again there.
struct HeldLink: Sendable, Equatable {
    /// The identity to link, as the link would store it (its sealed provider token, its kind).
    var identity: Identity
    /// The provider's name for the user: the account's, when it has none.
    var displayName: String?
    /// The provider's photo URL (already sanitized): the account's, when it has none.
    var photoURL: String?
    /// The credential's single-use mark, recorded with the link.
    var singleUse: SingleUseMark?

    /// The link `verified` would make at `date` (``AccountService/apply(_:signIn:)``'s `.link`).
    init(_ verified: VerifiedIdentity, at date: Date) {
        identity = verified.linkedIdentity(at: date)
        displayName = verified.identity.displayName
        photoURL = verified.identity.photoURL
        singleUse = verified.singleUse
    }

    /// Links the identity to `account` at `date`, inside the completion's transaction: the account must still be
    /// enabled, hold the identity's email verified and no identity of that provider, else the link no longer
    /// applies (``SecondFactorError/Code/invalidPendingCredential``: the app signs in again).
    func apply(to account: inout Account, at date: Date) throws {
        guard !account.disabled else { throw AccountError(.userDisabled) }
        guard let email = identity.email, account.email?.lowercased() == email.lowercased(), account.emailVerified,
            account.identity(identity.provider) == nil
        else { throw SecondFactorError(.invalidPendingCredential, "the held link no longer applies") }
        var linked = identity
        linked.linkedAt = date
        account.identities.append(linked)
        if account.displayName == nil { account.displayName = displayName }
        if account.photoURL == nil { account.photoURL = photoURL }
    }

    // MARK: - Sealed in the pending credential

    /// The JSON text sealed into the pending credential.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "provider": .string(identity.provider.rawValue), "subject": .string(identity.subject),
        ]
        if let email = identity.email { members["email"] = .string(email) }
        if let token = identity.providerToken { members["providerToken"] = .string(token) }
        if let kind = identity.kind { members["kind"] = .string(kind.rawValue) }
        if let displayName { members["displayName"] = .string(displayName) }
        if let photoURL { members["photoUrl"] = .string(photoURL) }
        if let singleUse {
            members["singleUse"] = .string(singleUse.key)
            members["singleUseExpiresAt"] = .int(singleUse.expiresAt.epochMilliseconds)
        }
        return .object(members)
    }

    /// The link `json` describes; nil when it is not one.
    init?(json: JSONValue, at date: Date) {
        guard let provider = json["provider"]?.stringValue, let subject = json["subject"]?.stringValue else {
            return nil
        }
        let kind = json["kind"]?.stringValue.flatMap(CredentialKind.init(rawValue:))
        identity = Identity(
            provider: ProviderID(provider), subject: subject, email: json["email"]?.stringValue, linkedAt: date,
            providerToken: json["providerToken"]?.stringValue, kind: kind)
        displayName = json["displayName"]?.stringValue
        photoURL = json["photoUrl"]?.stringValue
        singleUse = json["singleUse"]?.stringValue.flatMap { key in
            json["singleUseExpiresAt"]?.intValue.map {
                SingleUseMark(key: key, expiresAt: Date(timeIntervalSince1970: Double($0) / 1000))
            }
        }
    }

    /// The associated data the link is sealed with in a pending credential for `uid`.
    static func sealingContext(_ uid: AccountID) -> String { "mfa-held-link:\(uid.rawValue)" }
}
