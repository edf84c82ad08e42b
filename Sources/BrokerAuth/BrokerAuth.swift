public import Foundation

/// The broker's client for an app: sign-in with every provider, email and password, guests and their upgrade,
/// the second factor; the session kept in ``SessionStorage`` and restored at launch, the ID token refreshed
/// before it expires with one refresh at a time, and the session's changes as a stream.
///
/// ```swift
/// let auth = BrokerAuth(baseURL: URL(string: "https://auth.example.com")!)
/// if auth.currentUser == nil { try await auth.signIn(with: .google(idToken: token)) }
/// let idToken = try await auth.idToken()   // for `Authorization: Bearer` to your backend
/// ```
///
/// One instance per broker for the app's lifetime: two instances on one storage each refresh on their own.
public final class BrokerAuth: Sendable {
    /// The broker's base URL.
    public let baseURL: URL
    let keeper: SessionKeeper
    private let state: SessionState

    /// A client of the broker at `baseURL`, keeping its session in `storage`. A stored session is restored here,
    /// synchronously: ``currentUser`` is the signed-in user right away (auto-login), and the first ``idToken()``
    /// refreshes it.
    public convenience init(baseURL: URL, storage: SessionStorage = .default) {
        self.init(baseURL: baseURL, storage: storage, now: { Date() })
    }

    /// As the public init, with the clock the ID token's expiry is judged by (tests move it).
    init(baseURL: URL, storage: SessionStorage, now: @escaping @Sendable () -> Date) {
        self.baseURL = baseURL
        let vault = storage.vault(for: baseURL)
        let stored = SessionKeeper.restore(from: vault)
        state = SessionState(user: stored?.user)
        keeper = SessionKeeper(
            transport: Transport(baseURL: baseURL), vault: vault, state: state, stored: stored, now: now)
    }

    // MARK: - The session

    /// The signed-in user, nil when no one is; restored from the storage at init.
    public var currentUser: BrokerUser? { state.currentUser }

    /// The Firebase custom token of the last sign-in or refresh (nil without one, or after a restart until the
    /// first refresh): `Auth.auth().signIn(withCustomToken:)` makes Firebase's uid the broker's.
    public var customToken: String? { state.currentCustomToken }

    /// The session's changes from now on: signed in, refreshed, the user updated, signed out, revoked. Each read
    /// is a new stream; it ends when the caller stops iterating.
    public var sessionChanges: AsyncStream<SessionChange> { state.changes() }

    /// An ID token for `Authorization: Bearer` (your backend, `/v1/me`): the one in memory while it has more than a
    /// minute left, else a fresh one from a refresh. However many callers ask at once, one refresh is made.
    /// A session the broker ended throws ``BrokerAuthError/invalidRefreshToken`` (or `userDisabled`) and signs out
    /// here (``SessionChange/revoked``); offline, ``BrokerAuthError/network(message:)`` keeps the session.
    public func idToken(forceRefresh: Bool = false) async throws -> String {
        try await keeper.idToken(forceRefresh: forceRefresh)
    }

    // MARK: - Signing in

    /// Signs in with a provider's token (`POST /v1/signin/{provider}`). An account with a second factor throws
    /// ``BrokerAuthError/mfaRequired(_:)``: finish with ``signIn(resolving:factorID:code:)``.
    @discardableResult
    public func signIn(with credential: ProviderCredential) async throws -> SignInResult {
        try await start("/v1/signin/\(credential.provider)", credential.body)
    }

    /// Signs in with an email and a password (`POST /v1/signin/password`).
    @discardableResult
    public func signIn(email: String, password: String) async throws -> SignInResult {
        try await start("/v1/signin/password", .object(["email": .string(email), "password": .string(password)]))
    }

    /// Creates an email and password account and signs in to it (`POST /v1/signup`). When a guest is signed in,
    /// the guest is upgraded in place instead: the same uid, now with this email and password.
    @discardableResult
    public func signUp(email: String, password: String, displayName: String? = nil) async throws -> SignInResult {
        let body = JSONBody.object([
            "email": .string(email), "password": .string(password), "displayName": displayName.map(JSONBody.string),
        ])
        if currentUser?.isAnonymous == true {
            return try await keeper.renewing("POST", "/v1/signup", body: body) { .userUpdated($0) }
        }
        return try await start("/v1/signup", body)
    }

    /// Signs in as a new guest (`POST /v1/signin/anonymous`): an account with no email or identity, upgraded in
    /// place later by ``link(_:)`` or ``signUp(email:password:displayName:)``.
    @discardableResult
    public func signInAnonymously() async throws -> SignInResult {
        try await start("/v1/signin/anonymous", .object([:]))
    }

    /// Finishes a sign-in that answered ``BrokerAuthError/mfaRequired(_:)`` with a code of one of its factors
    /// (`POST /v1/signin/mfa`).
    @discardableResult
    public func signIn(
        resolving pending: PendingSecondFactor, factorID: String, code: String
    ) async throws
        -> SignInResult
    {
        try await start(
            "/v1/signin/mfa",
            .object([
                "mfaPendingCredential": .string(pending.credential), "factorId": .string(factorID),
                "code": .string(code),
            ]))
    }

    /// Finishes a sign-in that answered ``BrokerAuthError/mfaRequired(_:)`` with one of the account's recovery
    /// codes.
    @discardableResult
    public func signIn(resolving pending: PendingSecondFactor, recoveryCode: String) async throws -> SignInResult {
        try await start(
            "/v1/signin/mfa",
            .object(["mfaPendingCredential": .string(pending.credential), "recoveryCode": .string(recoveryCode)]))
    }

    /// Starts the session a sign-in at `path` answers.
    func start(_ path: String, _ body: JSONBody) async throws -> SignInResult {
        let session = try await keeper.transport.send(SessionBody.self, "POST", path, body: body)
        return try await keeper.start(session) { .signedIn($0) }
    }

    // MARK: - The signed-in user

    /// The user as the broker knows it now (`GET /v1/me`).
    @discardableResult
    public func reloadUser() async throws -> BrokerUser {
        let user = try SessionKeeper.decode(BrokerUser.self, try await keeper.authorized("GET", "/v1/me"))
        try await keeper.update(user)
        return user
    }

    /// Changes the display name and the photo (`PATCH /v1/me`). A parameter left out is left as it is; `.some(nil)`
    /// removes it.
    @discardableResult
    public func updateProfile(displayName: String?? = .none, photoURL: URL?? = .none) async throws -> BrokerUser {
        var members: [String: JSONBody?] = [:]
        if case .some(let name) = displayName { members["displayName"] = name.map(JSONBody.string) ?? .null }
        if case .some(let url) = photoURL { members["photoUrl"] = url.map { .string($0.absoluteString) } ?? .null }
        let data = try await keeper.authorized("PATCH", "/v1/me", body: .object(members))
        let user = try SessionKeeper.decode(BrokerUser.self, data)
        try await keeper.update(user)
        return user
    }

    /// Links another provider to the account (`POST /v1/me/identities/{provider}`); a guest's link is its upgrade
    /// in place (the same uid). Needs a recent sign-in, except for a guest (``BrokerAuthError/recentSignInRequired``:
    /// sign in again). Refused: ``BrokerAuthError/identityAlreadyLinked``,
    /// ``BrokerAuthError/accountExists(existingProviders:)``, and the guest is unchanged.
    @discardableResult
    public func link(_ credential: ProviderCredential) async throws -> BrokerUser {
        try await keeper.link(credential)
    }

    /// Unlinks a provider (`DELETE /v1/me/identities/{provider}`); never the last way in
    /// (``BrokerAuthError/lastIdentity``). Needs a recent sign-in (``BrokerAuthError/recentSignInRequired``).
    @discardableResult
    public func unlink(provider: String) async throws -> BrokerUser {
        let user = try SessionKeeper.decode(
            BrokerUser.self, try await keeper.authorized("DELETE", "/v1/me/identities/\(provider)"))
        try await keeper.update(user)
        return user
    }

    /// Sets a new password (or a first one) (`POST /v1/me/password`): every other session ends, this one goes on
    /// with new tokens. Needs a recent sign-in (``BrokerAuthError/recentSignInRequired``).
    public func updatePassword(_ newPassword: String) async throws {
        _ = try await keeper.renewing("POST", "/v1/me/password", body: .object(["newPassword": .string(newPassword)])) {
            .refreshed($0)
        }
    }

    // MARK: - Signing out

    /// Signs out: the session is forgotten here (storage included) and ended on the broker (`POST /v1/signout`).
    /// Offline, the local sign-out still happens and the broker's session lapses when its refresh token expires.
    public func signOut() async throws {
        guard let token = try await keeper.end(.signedOut) else { return }
        _ = try? await keeper.transport.send("POST", "/v1/signout", body: .object(["refreshToken": .string(token)]))
    }

    /// Deletes the account (`DELETE /v1/me`) and signs out. Needs a recent sign-in
    /// (``BrokerAuthError/recentSignInRequired``).
    public func deleteAccount() async throws {
        _ = try await keeper.authorized("DELETE", "/v1/me")
        try await keeper.end(.signedOut)
    }
}
