/// Passkeys (contract section 15): each ceremony is two calls around the platform's authenticator, the options
/// from the broker first, then the authenticator's answer to it.
///
/// ```swift
/// let options = try await auth.passkeySignInOptions()
/// let assertion = try await platformAuthenticator(options)   // ASAuthorizationController, a browser, …
/// try await auth.signIn(withPasskey: assertion)
/// ```
///
/// A refused ceremony throws ``BrokerAuthError/invalidPasskey`` (a check failed, or the challenge was unknown,
/// used or expired: start again with new options) and changes nothing, the session here included.
extension BrokerAuth {
    // MARK: - Signing in

    /// Options for a passkey sign-in (`POST /v1/signin/passkey/options`): a fresh challenge for any of the user's
    /// passkeys (a discoverable sign-in: no user name asked).
    public func passkeySignInOptions() async throws -> PasskeySignInOptions {
        try await keeper.transport.send(
            PublicKeyAnswer<PasskeySignInOptions>.self, "POST", "/v1/signin/passkey/options", body: .object([:])
        ).publicKey
    }

    /// Signs in with a passkey's answer to ``passkeySignInOptions()`` (`POST /v1/signin/passkey`), as any other
    /// sign-in: stored, reported as ``SessionChange/signedIn(_:)``. A passkey is both factors (the user was
    /// verified), so it is never held for a second factor. Refused: ``BrokerAuthError/invalidPasskey`` (also a
    /// replayed answer, or a cloned authenticator's), ``BrokerAuthError/userDisabled``.
    @discardableResult
    public func signIn(withPasskey assertion: PasskeyAssertion) async throws -> SignInResult {
        try await start("/v1/signin/passkey", .object(["credential": .encodable(assertion)]))
    }

    // MARK: - Passwordless sign-up

    /// Options for a new account whose only way in is a passkey (`POST /v1/signup/passkey/options`), with the
    /// `email` (unverified until the usual verification) and the `displayName` it will have, both optional; the
    /// platform lists the passkey under the email, else the display name. Refused: ``BrokerAuthError/invalidEmail``,
    /// ``BrokerAuthError/emailExists``. With a guest signed in, they are options for that guest's upgrade.
    public func passkeySignUpOptions(
        email: String? = nil, displayName: String? = nil
    ) async throws
        -> PasskeyRegistrationOptions
    {
        let body = JSONBody.object([
            "email": email.map(JSONBody.string), "displayName": displayName.map(JSONBody.string),
        ])
        let path = "/v1/signup/passkey/options"
        let answer: PublicKeyAnswer<PasskeyRegistrationOptions>
        if currentUser?.isAnonymous == true {
            answer = try SessionKeeper.decode(
                PublicKeyAnswer.self, try await keeper.authorized("POST", path, body: body))
        } else {
            answer = try await keeper.transport.send(PublicKeyAnswer.self, "POST", path, body: body)
        }
        return answer.publicKey
    }

    /// Creates the account of ``passkeySignUpOptions(email:displayName:)`` with the new passkey, named `name`, and
    /// signs in to it (`POST /v1/signup/passkey`; ``SignInResult/isNewUser`` true). When a guest is signed in, the
    /// guest is upgraded in place instead (its ID token sent): the same uid, now with the passkey,
    /// ``SessionChange/userUpdated(_:)``. Refused: ``BrokerAuthError/invalidPasskey``,
    /// ``BrokerAuthError/passkeyExists``, ``BrokerAuthError/emailExists`` (taken since the options),
    /// ``BrokerAuthError/blockedByHook(message:)``; nothing is stored then.
    @discardableResult
    public func signUp(
        withPasskey registration: PasskeyRegistration, name: String? = nil
    ) async throws
        -> SignInResult
    {
        let body = Self.registrationBody(registration, name: name)
        if currentUser?.isAnonymous == true {
            return try await keeper.renewing("POST", "/v1/signup/passkey", body: body) { .userUpdated($0) }
        }
        return try await start("/v1/signup/passkey", body)
    }

    // MARK: - The signed-in account's passkeys

    /// Options for a new passkey of the signed-in account (`POST /v1/me/passkeys/options`): its passkeys are
    /// excluded. Needs a recent sign-in (``BrokerAuthError/recentSignInRequired``: sign in again, with a passkey
    /// or otherwise, then ask again).
    public func passkeyRegistrationOptions() async throws -> PasskeyRegistrationOptions {
        let data = try await keeper.authorized("POST", "/v1/me/passkeys/options", body: .object([:]))
        return try SessionKeeper.decode(PublicKeyAnswer<PasskeyRegistrationOptions>.self, data).publicKey
    }

    /// Adds the passkey the authenticator made for ``passkeyRegistrationOptions()`` to the signed-in account, named
    /// `name` (`POST /v1/me/passkeys`). A guest's first passkey makes it an account like any other, in place: the
    /// same uid, ``BrokerUser/isAnonymous`` false (reported as ``SessionChange/userUpdated(_:)``). Refused:
    /// ``BrokerAuthError/invalidPasskey``, ``BrokerAuthError/passkeyExists`` (registered already, here or on
    /// another account), ``BrokerAuthError/recentSignInRequired``; nothing is stored then.
    @discardableResult
    public func registerPasskey(credential: PasskeyRegistration, name: String? = nil) async throws -> Passkey {
        let data = try await keeper.upgradingGuest(
            "POST", "/v1/me/passkeys", body: Self.registrationBody(credential, name: name))
        return try SessionKeeper.decode(PasskeyAnswer.self, data).passkey
    }

    /// The signed-in account's passkeys, oldest first (`GET /v1/me/passkeys`).
    public func passkeys() async throws -> [Passkey] {
        try SessionKeeper.decode(PasskeyList.self, try await keeper.authorized("GET", "/v1/me/passkeys")).passkeys
    }

    /// Renames a passkey of the signed-in account (`PATCH /v1/me/passkeys/{id}`); nil removes its name.
    /// ``BrokerAuthError/notFound`` when the account has no such passkey.
    @discardableResult
    public func renamePasskey(id: String, to name: String?) async throws -> Passkey {
        let data = try await keeper.authorized(
            "PATCH", "/v1/me/passkeys/\(id)", body: .object(["name": name.map(JSONBody.string) ?? .null]))
        return try SessionKeeper.decode(PasskeyAnswer.self, data).passkey
    }

    /// Removes a passkey from the signed-in account (`DELETE /v1/me/passkeys/{id}`); the authenticator keeps it
    /// until the user deletes it there, but it signs in no more. Never the account's last way in
    /// (``BrokerAuthError/lastIdentity``); needs a recent sign-in (``BrokerAuthError/recentSignInRequired``);
    /// ``BrokerAuthError/notFound`` when the account has no such passkey.
    public func deletePasskey(id: String) async throws {
        _ = try await keeper.authorized("DELETE", "/v1/me/passkeys/\(id)")
    }

    /// `{"credential", "name"?}`.
    private static func registrationBody(_ registration: PasskeyRegistration, name: String?) -> JSONBody {
        .object(["credential": .encodable(registration), "name": name.map(JSONBody.string)])
    }
}

/// `{"publicKey": …}`, the answer of every options call.
struct PublicKeyAnswer<Options: Decodable>: Decodable {
    var publicKey: Options
}

/// `{"passkey": …}`.
struct PasskeyAnswer: Decodable {
    var passkey: Passkey
}

/// `{"passkeys": […]}`.
struct PasskeyList: Decodable {
    var passkeys: [Passkey]
}
