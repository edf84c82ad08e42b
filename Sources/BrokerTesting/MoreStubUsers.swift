/// A Naver user as the stub's `/v1/nid/me` reports it.
public struct NaverStubUser: Sendable, Equatable {
    /// Naver's per-app user id (`response.id`).
    public var id: String
    /// The email the user shares, if any (Naver vouches for none).
    public var email: String?
    /// The nickname.
    public var nickname: String?
    /// The real name.
    public var name: String?
    /// The profile image URL.
    public var profileImage: String?

    /// Creates a user.
    public init(id: String, email: String? = nil, nickname: String? = nil, name: String? = nil, profileImage: String? = nil) {
        self.id = id
        self.email = email
        self.nickname = nickname
        self.name = name
        self.profileImage = profileImage
    }
}

/// A LINE user as the stub's verify and profile endpoints report them.
public struct LineStubUser: Sendable, Equatable {
    /// LINE's user id (`U` + 32 hex digits), the ID token's `sub` and the profile's `userId`.
    public var userID: String
    /// The display name.
    public var displayName: String?
    /// The picture URL.
    public var pictureURL: String?
    /// The channel the access token was issued to.
    public var channelID: String
    /// The token's remaining seconds as verify reports them.
    public var expiresIn: Int64

    /// Creates a user of the stub's default channel.
    public init(
        userID: String, displayName: String? = nil, pictureURL: String? = nil,
        channelID: String = StubProviders.lineChannelID, expiresIn: Int64 = 2_591_000
    ) {
        self.userID = userID
        self.displayName = displayName
        self.pictureURL = pictureURL
        self.channelID = channelID
        self.expiresIn = expiresIn
    }
}

/// How the stub's Naver and LINE APIs and the OIDC issuer's discovery misbehave, on demand.
public enum StubFault: Sendable, Equatable {
    /// Answers normally.
    case none
    /// Answers 503 (Naver: 500 with its `resultcode`).
    case down
    /// Answers normally after a delay.
    case slow(milliseconds: Int)
    /// Never answers within any sane timeout (30 s).
    case hang
    /// Refuses every token (Naver: 401 `024`; LINE: 400 `invalid_request`).
    case refusing
    /// Answers 403: our app may not call the API.
    case misconfigured
}
