import BrokerCore
import BrokerModel
import Foundation
import Testing

/// The audit action's stored strings: exactly the ones brokers wrote before it was an enum, and any other string
/// read back as it was stored.
@Suite struct AuditActionTests {
    /// Every action and the string `audit_events.action` holds for it (the admin API, the console and the CLI
    /// show it; the console's chart filters on `sign_in`).
    static let stored: [(AuditAction, String)] = [
        (.signUp, "sign_up"), (.signIn, "sign_in"), (.link, "link"), (.unlink, "unlink"), (.takeOver, "take_over"),
        (.disable, "disable"), (.enable, "enable"), (.update, "update"), (.delete, "delete"),
        (.revokeSessions, "revoke_sessions"), (.customToken, "custom_token"), (.signOut, "sign_out"),
        (.consoleSignIn, "console_sign_in"), (.consoleSignOut, "console_sign_out"), (.create, "create"),
        (.import, "import"), (.passwordChange, "password_change"), (.passwordReset, "password_reset"),
        (.verifyEmail, "verify_email"), (.mailQueued, "mail_queued"), (.oobLinkIssued, "oob_link_issued"),
        (.outboxDelivered, "outbox_delivered"), (.outboxGivenUp, "outbox_given_up"),
        (.outboxRefused, "outbox_refused"), (.rotateKey, "rotate_key"), (.consentRevoked, "consent_revoked"),
        (.providerAccountDeleted, "provider_account_deleted"), (.emailEnabled, "email_enabled"),
        (.emailDisabled, "email_disabled"), (.mfaEnroll, "mfa_enroll"), (.mfaUnenroll, "mfa_unenroll"),
        (.mfaRecoveryCodes, "mfa_recovery_codes"), (.mfaRecoveryCodeUsed, "mfa_recovery_code_used"),
        (.providerConfig, "provider_config"), (.emailChange, "email_change"), (.emailRecover, "email_recover"),
        (.providerTokenRevoke, "provider_token_revoke"), (.passkeyRegister, "passkey_register"),
        (.passkeyDelete, "passkey_delete"),
    ]

    @Test(arguments: stored)
    func aKnownActionKeepsItsStoredString(action: AuditAction, string: String) {
        #expect(action.rawValue == string)
        #expect(action.description == string)
        #expect(AuditAction(rawValue: string) == action)
        #expect(action.isKnown)
    }

    @Test func theTableListsEveryKnownActionOnce() {
        #expect(Self.stored.map(\.0) == AuditAction.known)
        #expect(Set(AuditAction.known.map(\.rawValue)).count == AuditAction.known.count)
    }

    @Test(arguments: ["signin", "future_action", "", "SIGN_IN", "sign_in "])
    func anyOtherStringIsKeptAsStored(string: String) {
        let action = AuditAction(rawValue: string)
        #expect(action == .unrecognized(string))
        #expect(action.rawValue == string)
        #expect(!action.isKnown)
        #expect(action != .signIn)
    }

    @Test func anEventShowsAnUnrecognizedActionAsStored() {
        let event = AuditEvent(
            time: .now, uid: nil, action: AuditAction(rawValue: "future_action"), actor: .system, requestID: "r",
            origin: nil)
        #expect(event.json["action"]?.stringValue == "future_action")
    }
}
