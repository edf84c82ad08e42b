public import BrokerModel

/// The look-ups an administrator's account operations need beyond ``AccountStore``'s: by phone number, and every
/// account in uid order (the order their pages of accounts come in).
public protocol AccountQuerying: Sendable {
    /// The account holding `phoneNumber` (compared exactly: numbers are stored in E.164).
    func account(phoneNumber: String) async throws -> Account?
    /// Up to `limit` accounts whose uid sorts after `uid` (all from the first when nil), in uid order (byte
    /// order of the uid's UTF-8, alike in every backend).
    func listAccounts(afterUID uid: AccountID?, limit: Int) async throws -> [Account]
}
