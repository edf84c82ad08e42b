public import BrokerModel

extension OutboxKind {
    /// Unlinking a Kakao user when its account is deleted (contract section 10).
    public static let kakaoUnlink = OutboxKind("kakao.unlink")
}
