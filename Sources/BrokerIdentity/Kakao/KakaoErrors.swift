package import BrokerModel

/// The error codes Kakao contributes to the API (contract section 6).
extension ProviderError {
    /// 401 `KAKAO_APP_MISMATCH`: the access token was issued to another Kakao app.
    static func kakaoAppMismatch(_ detail: String) -> ProviderError {
        ProviderError(
            .rejected, detail,
            publicCode: PublicErrorCode(
                status: 401, code: "KAKAO_APP_MISMATCH", message: "The token was issued to another Kakao app."))
    }

    /// 400 `KAKAO_EMAIL_REQUIRED`: the `email-password` mapping needs the Kakao account's email.
    package static let kakaoEmailRequired = ProviderError(
        .rejected, "kakao account has no email",
        publicCode: PublicErrorCode(status: 400, code: "KAKAO_EMAIL_REQUIRED", message: "The Kakao account has no email."))
}
