import BrokerModel
import Foundation

/// What a provider sign-in held for the second factor stores when the factor completes (contract section 14): a
/// sign-in that would link a new identity to an account with a second factor, or that brings a returning identity's
/// new provider token (a refresh token), stores nothing of it when it answers `MFA_REQUIRED`; the identity
/// travels, sealed with `BROKER_ENCRYPTION_KEY`, inside the pending credential, and the completed second factor
/// links it, or keeps its token, in its own transaction, the premises of a link checked again there. The
/// credential's single-use mark is not held: the hold spends it (``SignInDecision/singleUse``).
struct HeldLink: Sendable, Equatable {
    /// The identity to link, as the link would store it (its sealed provider token, its kind).
    var identity: Identity
    /// The provider's name for the user: the account's, when it has none.
    var displayName: String?
    /// The provider's photo URL (already sanitized): the account's, when it has none.
    var photoURL: String?
    /// Whether the completion links the identity; false: the identity is already linked (a returning sign-in) and
    /// the completion keeps its new provider token, as a returning sign-in does.
    var links: Bool

    /// The link `verified` would make at `date` (``AccountService/apply(_:signIn:)``'s `.link`), or, when not
    /// `links`, the provider token a returning sign-in of `verified` would keep.
    init(_ verified: VerifiedIdentity, at date: Date, links: Bool = true) {
        identity = verified.linkedIdentity(at: date)
        displayName = verified.identity.displayName
        photoURL = verified.identity.photoURL
        self.links = links
    }

    /// Links the identity to `account` at `date`, inside the completion's transaction: the account must still be
    /// enabled, hold the identity's email verified and no identity of that provider, else the link no longer
    /// applies (``SecondFactorError/Code/invalidPendingCredential``: the app signs in again). A returning
    /// identity's token is kept on it (``Account/keepProviderToken(_:for:)``: nothing when it was unlinked since).
    func apply(to account: inout Account, at date: Date) throws {
        guard !account.disabled else { throw AccountError(.userDisabled) }
        guard links else {
            let returning = ExternalIdentity(provider: identity.provider, subject: identity.subject)
            return account.keepProviderToken(identity.providerToken, for: returning)
        }
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
        if !links { members["returning"] = true }
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
        links = json["returning"]?.boolValue != true
    }

    /// The associated data the link is sealed with in a pending credential for `uid`.
    static func sealingContext(_ uid: AccountID) -> String { "mfa-held-link:\(uid.rawValue)" }
}

extension SignInDecision {
    /// This decision with what holding it for a second factor spends and what completing it stores, for a provider
    /// sign-in of `verified` at `date`: the credential's single-use mark, and the link (a linked decision) or the
    /// provider's new token (a returning one that brings one).
    func holding(_ verified: VerifiedIdentity, at date: Date) -> SignInDecision {
        var decision = self
        decision.singleUse = verified.singleUse
        switch change {
        case .linked: decision.heldLink = HeldLink(verified, at: date)
        case .none where verified.providerToken != nil: decision.heldLink = HeldLink(verified, at: date, links: false)
        case .none, .created, .tookOver: break
        }
        return decision
    }
}
