public import BrokerModel

extension KakaoProvider: PasswordSignInGuarding {
    /// With `accountMapping: "email-password"`: an id-shaped password (``KakaoLegacyPasswordLinking/isIDShaped(_:)``)
    /// to an imported account that has no Kakao identity yet. Such an account's password may be the public Kakao id
    /// the workaround stored, which anyone who knows the email and id could send before the owner's first Kakao
    /// sign-in (issue 25, finding 2).
    public func refusesPasswordSignIn(_ password: String, to account: Account) -> Bool {
        linking == .kakaoLegacyPassword && account.origin == .import && account.identity(id) == nil
            && KakaoLegacyPasswordLinking.isIDShaped(password)
    }
}
