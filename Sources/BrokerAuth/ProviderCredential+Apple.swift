#if canImport(AuthenticationServices)
    public import AuthenticationServices

    extension ProviderCredential {
        /// The credential of a Sign in with Apple authorization, with the nonce whose ``SignInNonce/hashed`` the
        /// request carried (`request.nonce = nonce.hashed`); nil when Apple gave no identity token.
        public static func apple(
            _ credential: ASAuthorizationAppleIDCredential, nonce: SignInNonce
        )
            -> ProviderCredential?
        {
            guard let data = credential.identityToken, let identityToken = String(data: data, encoding: .utf8) else {
                return nil
            }
            let code = credential.authorizationCode.flatMap { String(data: $0, encoding: .utf8) }
            return .apple(
                identityToken: identityToken, rawNonce: nonce.raw, authorizationCode: code,
                fullName: credential.fullName)
        }
    }
#endif
