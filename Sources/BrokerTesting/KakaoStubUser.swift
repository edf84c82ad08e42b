/// A Kakao user as the stub's token-info and user/me endpoints report it.
public struct KakaoStubUser: Sendable, Equatable {
    /// The Kakao user id.
    public var id: Int64
    /// The Kakao account's email, if shared.
    public var email: String?
    /// Kakao's `is_email_valid`.
    public var emailValid: Bool
    /// Kakao's `is_email_verified`.
    public var emailVerified: Bool
    /// The profile nickname.
    public var nickname: String?
    /// The app the access token was issued to.
    public var appID: Int64

    /// Creates a user of the stub's default app.
    public init(
        id: Int64, email: String? = nil, emailValid: Bool = true, emailVerified: Bool = true, nickname: String? = nil,
        appID: Int64 = Int64(StubProviders.kakaoAppID) ?? 0
    ) {
        self.id = id
        self.email = email
        self.emailValid = emailValid
        self.emailVerified = emailVerified
        self.nickname = nickname
        self.appID = appID
    }
}

/// How the stub's Kakao API misbehaves, on demand.
public enum KakaoFault: Sendable, Equatable {
    /// Answers normally.
    case none
    /// Answers 503.
    case down
    /// Answers normally after a delay.
    case slow(milliseconds: Int)
    /// Never answers within any sane timeout (30 s).
    case hang
    /// Answers 401 with Kakao's -401 for every token.
    case invalidToken
    /// Answers 400 with Kakao's -3 (app not set up for the API).
    case misconfigured
    /// user/me reports a different user id than token info.
    case userMismatch
}
