public import Foundation

/// A verification or reset code as stored: its SHA-256, never the code.
public struct OOBCodeRecord: Sendable, Equatable {
    /// Lowercase hex SHA-256 of the code.
    public var codeHash: String
    /// What the code does.
    public var action: MailAction
    /// The account it was issued for.
    public var uid: AccountID
    /// The lower-cased email it was mailed to (a code stops working once the account's email changes).
    public var emailKey: String
    /// Where the browser goes afterwards, if allowed.
    public var continueURL: String?
    /// When it was issued.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// The address, as the user spelled it, that acting on the code gives the account: the new address of an email
    /// change (``MailAction/verifyAndChangeEmail``), the old one of its recovery (``MailAction/recoverEmail``); nil
    /// for the other actions.
    public var targetEmail: String?

    /// Creates a record.
    public init(
        codeHash: String, action: MailAction, uid: AccountID, emailKey: String, continueURL: String?, createdAt: Date,
        expiresAt: Date, targetEmail: String? = nil
    ) {
        self.targetEmail = targetEmail
        self.codeHash = codeHash
        self.action = action
        self.uid = uid
        self.emailKey = emailKey
        self.continueURL = continueURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
