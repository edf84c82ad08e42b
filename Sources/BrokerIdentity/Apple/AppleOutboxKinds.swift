public import BrokerModel

extension OutboxKind {
    /// Revoking a Sign in with Apple refresh token when its account is deleted (contract section 10).
    public static let appleRevoke = OutboxKind("apple.revoke")
}
