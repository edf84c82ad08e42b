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
