/// What an ``AuditEvent`` records. The raw value is the string stored in `audit_events.action` and shown by the
/// admin API, the console and the CLI; it never changes for a case.
///
/// A row that an older or newer broker wrote may hold an action this broker does not know: it reads as
/// ``unrecognized(_:)`` with the stored string, shown and filtered on as it is, never an error.
public enum AuditAction: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// An account was made by a password sign-up or an email link.
    case signUp
    /// A sign-in, or a refused one (its outcome is the refusal's code).
    case signIn
    /// A provider identity was linked to an account.
    case link
    /// A provider identity was removed from an account.
    case unlink
    /// An unverified account's email was taken over by a verified sign-in.
    case takeOver
    /// An account was disabled.
    case disable
    /// An account was enabled.
    case enable
    /// An account's profile or claims were changed.
    case update
    /// An account was deleted.
    case delete
    /// Every session of an account was revoked.
    case revokeSessions
    /// A custom token was minted for an account.
    case customToken
    /// A session was signed out.
    case signOut
    /// An administrator signed in to the console, or was refused.
    case consoleSignIn
    /// An administrator signed out of the console.
    case consoleSignOut
    /// An administrator made an account through an admin call that creates accounts (`/admin/v1` has none).
    case create
    /// An account was imported.
    case `import`
    /// A user changed their password.
    case passwordChange
    /// A user reset their password with an emailed code.
    case passwordReset
    /// A user verified their email with an emailed code.
    case verifyEmail
    /// A mail was queued for delivery.
    case mailQueued
    /// An administrator made an out-of-band email link.
    case oobLinkIssued
    /// An outbox job was delivered.
    case outboxDelivered
    /// An outbox job was not delivered in time and was given up.
    case outboxGivenUp
    /// An outbox job was refused for good by its receiver.
    case outboxRefused
    /// An administrator rotated the signing key.
    case rotateKey
    /// A provider reported that its user revoked the consent given to the app.
    case consentRevoked
    /// A provider reported that its user's account there was deleted.
    case providerAccountDeleted
    /// A provider reported that its user turned email forwarding to the app on.
    case emailEnabled
    /// A provider reported that its user turned email forwarding to the app off.
    case emailDisabled
    /// A second factor was enrolled (contract section 14).
    case mfaEnroll
    /// A second factor was removed, by its owner or an administrator.
    case mfaUnenroll
    /// A new set of recovery codes replaced the old one.
    case mfaRecoveryCodes
    /// A recovery code finished a sign-in (and is used up).
    case mfaRecoveryCodeUsed
    /// An administrator created, changed or deleted an OpenID Connect provider managed at run time (the outcome
    /// says which: `created`, `updated`, `deleted`).
    case providerConfig
    /// A user's confirmed email change (contract section 9) made the new address the account's.
    case emailChange
    /// The recovery link an email change mailed to the old address put that address back.
    case emailRecover
    /// A user had a provider token revoked at its provider (from a fresh authorization code the app sent): the
    /// revocation was queued.
    case providerTokenRevoke
    /// A passkey was registered (contract section 15); its sign-ins are `signIn` events with provider `passkey`.
    case passkeyRegister
    /// A passkey was removed, by its owner or an administrator.
    case passkeyDelete
    /// An action this broker does not know, read from a stored row: the string as stored.
    /// ``init(rawValue:)`` makes it only for a string no other case has.
    case unrecognized(String)

    /// Every action this broker writes.
    public static let known: [AuditAction] = [
        .signUp, .signIn, .link, .unlink, .takeOver, .disable, .enable, .update, .delete, .revokeSessions,
        .customToken, .signOut, .consoleSignIn, .consoleSignOut, .create, .import, .passwordChange, .passwordReset,
        .verifyEmail, .mailQueued, .oobLinkIssued, .outboxDelivered, .outboxGivenUp, .outboxRefused, .rotateKey,
        .consentRevoked, .providerAccountDeleted, .emailEnabled, .emailDisabled, .mfaEnroll, .mfaUnenroll,
        .mfaRecoveryCodes, .mfaRecoveryCodeUsed, .providerConfig, .emailChange, .emailRecover, .providerTokenRevoke,
        .passkeyRegister, .passkeyDelete,
    ]

    private static let byRawValue: [String: AuditAction] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.rawValue, $0) })

    /// The action a stored string names: a known case, or ``unrecognized(_:)`` with the string. Never nil.
    public init(rawValue: String) {
        self = Self.byRawValue[rawValue] ?? .unrecognized(rawValue)
    }

    /// The stored string: `sign_in`, `take_over`, `outbox_refused`, ..., or an unrecognized action's own.
    public var rawValue: String {
        switch self {
        case .signUp: "sign_up"
        case .signIn: "sign_in"
        case .link: "link"
        case .unlink: "unlink"
        case .takeOver: "take_over"
        case .disable: "disable"
        case .enable: "enable"
        case .update: "update"
        case .delete: "delete"
        case .revokeSessions: "revoke_sessions"
        case .customToken: "custom_token"
        case .signOut: "sign_out"
        case .consoleSignIn: "console_sign_in"
        case .consoleSignOut: "console_sign_out"
        case .create: "create"
        case .import: "import"
        case .passwordChange: "password_change"
        case .passwordReset: "password_reset"
        case .verifyEmail: "verify_email"
        case .mailQueued: "mail_queued"
        case .oobLinkIssued: "oob_link_issued"
        case .outboxDelivered: "outbox_delivered"
        case .outboxGivenUp: "outbox_given_up"
        case .outboxRefused: "outbox_refused"
        case .rotateKey: "rotate_key"
        case .consentRevoked: "consent_revoked"
        case .providerAccountDeleted: "provider_account_deleted"
        case .emailEnabled: "email_enabled"
        case .emailDisabled: "email_disabled"
        case .mfaEnroll: "mfa_enroll"
        case .mfaUnenroll: "mfa_unenroll"
        case .mfaRecoveryCodes: "mfa_recovery_codes"
        case .mfaRecoveryCodeUsed: "mfa_recovery_code_used"
        case .providerConfig: "provider_config"
        case .emailChange: "email_change"
        case .emailRecover: "email_recover"
        case .providerTokenRevoke: "provider_token_revoke"
        case .passkeyRegister: "passkey_register"
        case .passkeyDelete: "passkey_delete"
        case .unrecognized(let stored): stored
        }
    }

    /// The stored string.
    public var description: String { rawValue }

    /// Whether this broker knows the action (it is not ``unrecognized(_:)``).
    public var isKnown: Bool {
        if case .unrecognized = self { false } else { true }
    }
}
