public import BrokerModel
import BrokerStorage

extension AccountSelfService {
    /// Registers a passkey on the signed-in user's account (`POST /v1/me/passkeys`; recent sign-in required, a
    /// guest's session always counts as recent): ``PasskeyService/register(_:credential:name:requestID:)``, which
    /// audits the registration with it. Counted (`broker_links_total`, label `passkey`, `success` or the refusal's
    /// code) and, refused, audited (`passkey_register`, with the code) once, as a link to a signed-in account is.
    public func registerPasskey(
        _ user: User, credential: JSONValue, name: String?, requestID: String
    ) async throws -> PasskeyRecord {
        guard let passkeys = signIn.passkeys else { throw PasskeyError(.notEnabled) }
        return try await signIn.counted(
            "broker_links_total", label: PasskeySignIn.label, success: "success", refusal: .passkeyRegister,
            uid: user.account.id, requestID: requestID
        ) {
            try requireRecentSignIn(user)
            return try await passkeys.register(user.account, credential: credential, name: name, requestID: requestID)
        }
    }
}
