public import BrokerModel

extension KakaoProvider: PasswordSignInGuarding {
    /// With `accountMapping: "email-password"`: an id-shaped password (``isIDShaped(_:)``)
    /// to an imported account that has no Kakao identity yet. Such an account's password may be the public Kakao id
    /// the workaround stored, which anyone who knows the email and id could send before the owner's first Kakao
    /// sign-in (issue 25, finding 2).
    public func refusesPasswordSignIn(_ password: String, to account: Account) -> Bool {
        linking == .kakaoLegacyPassword && account.origin == .import && account.identity(id) == nil
            && Self.isIDShaped(password)
    }
}

extension KakaoProvider {
    /// Whether `password` has the shape of a password the workaround stored: decimal digits (a Kakao id), or
    /// `Optional(<digits>)`. Password sign-in refuses such a password to an imported account until its owner's
    /// Kakao sign-in (``refusesPasswordSignIn(_:to:)``).
    package static func isIDShaped(_ password: String) -> Bool {
        var digits = Substring(password)
        if digits.hasPrefix("Optional("), digits.hasSuffix(")") { digits = digits.dropFirst(9).dropLast() }
        return !digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}

extension LinkingRule {
    /// Kakao's `accountMapping: "email-password"` (the core carries it out).
    public static let kakaoLegacyPassword = LinkingRule("kakao.email-password")
}
