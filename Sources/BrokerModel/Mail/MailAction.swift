/// What a mail asks the reader to do.
public enum MailAction: String, Sendable, CaseIterable {
    /// Confirm the email address (`mode=verifyEmail`).
    case verifyEmail
    /// Choose a new password (`mode=resetPassword`).
    case resetPassword
    /// Sign in with the link (`mode=signIn`, the email-link sign-in): the app, not the page, uses it.
    case signIn
    /// Confirm a new address the signed-in user asked to change to (`mode=verifyAndChangeEmail`, mailed to the new
    /// address): the change happens only then (contract section 9).
    case verifyAndChangeEmail
    /// Put back the address an email change replaced (`mode=recoverEmail`, mailed to the old address once the change
    /// is confirmed; it works for 72 hours).
    case recoverEmail
}
