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
