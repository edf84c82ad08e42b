import Foundation

/// The one owner of the session's tokens: the refresh token (also in the storage) and the ID token (in memory
/// only). An actor, so one refresh at a time: callers that ask while a refresh is under way wait for that one
/// (presenting a rotated refresh token again after 10 s would sign the user out everywhere).
actor SessionKeeper {
    /// The stored form: the refresh token and the user, so ``BrokerAuth/currentUser`` is there at launch.
    struct Stored: Codable {
        var refreshToken: String
        var user: BrokerUser
    }

    /// A refresh when the ID token has less than this left.
    static let refreshMargin: TimeInterval = 60

    let transport: Transport
    private let vault: any SessionVault
    private let state: SessionState
    private let now: @Sendable () -> Date
    private var refreshToken: String?
    private var idToken: String?
    private var expiresAt = Date.distantPast
    /// Changes with every sign-in and sign-out: an answer that arrives for an older session is dropped.
    private var generation = 0
    private var refreshing: Task<String, any Error>?

    init(
        transport: Transport, vault: any SessionVault, state: SessionState, stored: Stored?,
        now: @escaping @Sendable () -> Date
    ) {
        self.transport = transport
        self.vault = vault
        self.state = state
        self.now = now
        refreshToken = stored?.refreshToken
    }

    /// Reads the stored session (nil when there is none or it cannot be read).
    static func restore(from vault: any SessionVault) -> Stored? {
        guard let data = try? vault.load() else { return nil }
        return try? JSONDecoder().decode(Stored.self, from: data)
    }

    // MARK: - Starting and ending

    /// Starts the session of a sign-in's `body`, reported as `change`.
    func start(_ body: SessionBody, change: (BrokerUser) -> SessionChange) throws -> SignInResult {
        generation += 1
        refreshing = nil
        try keep(body, change: change(body.user))
        return SignInResult(user: body.user, isNewUser: body.isNewUser ?? false, customToken: body.customToken)
    }

    /// Keeps a session body (a sign-in's, a refresh's, a guest's upgrade's, a password change's) and reports
    /// `change`, then stores it. The tokens in memory are the new ones even when the storage fails (that throws):
    /// the broker has retired the old refresh token, and presenting it again later would end the session.
    private func keep(_ body: SessionBody, change: SessionChange) throws {
        refreshToken = body.refreshToken
        idToken = body.idToken
        expiresAt = now().addingTimeInterval(TimeInterval(body.expiresIn))
        state.publish(user: body.user, customToken: .some(body.customToken), change: change)
        try vault.save(try JSONEncoder().encode(Stored(refreshToken: body.refreshToken, user: body.user)))
    }

    /// Forgets the session here (storage included) and reports `change`; the refresh token it held, if any.
    @discardableResult
    func end(_ change: SessionChange) throws -> String? {
        let token = refreshToken
        generation += 1
        refreshing = nil
        refreshToken = nil
        idToken = nil
        expiresAt = .distantPast
        state.publish(user: nil, customToken: .some(nil), change: token == nil ? nil : change)
        try vault.remove()
        return token
    }

    /// The user changed within the session: keep it (stored too) and report it.
    func update(_ user: BrokerUser) throws {
        guard let refreshToken else { return }
        try vault.save(try JSONEncoder().encode(Stored(refreshToken: refreshToken, user: user)))
        state.publish(user: user, change: .userUpdated(user))
    }

    // MARK: - Tokens

    /// An ID token with more than ``refreshMargin`` left, refreshing first when it has less (or `force`).
    func idToken(forceRefresh force: Bool) async throws -> String {
        guard refreshToken != nil else { throw BrokerAuthError.notSignedIn }
        if !force, let idToken, expiresAt.timeIntervalSince(now()) > Self.refreshMargin { return idToken }
        return try await refresh()
    }

    /// Refreshes the session; callers arriving while a refresh is under way get that refresh's answer.
    private func refresh() async throws -> String {
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.performRefresh() }
        refreshing = task
        defer { if refreshing == task { refreshing = nil } }
        return try await task.value
    }

    private func performRefresh() async throws -> String {
        guard let token = refreshToken else { throw BrokerAuthError.notSignedIn }
        let started = generation
        do {
            let body = try await transport.send(
                SessionBody.self, "POST", "/v1/token", body: .object(["refreshToken": .string(token)]))
            guard generation == started else { throw BrokerAuthError.sessionChanged }
            try keep(body, change: .refreshed(body.user))
            return body.idToken
        } catch let error as BrokerAuthError where error == .invalidRefreshToken || error == .userDisabled {
            // The broker ended the session (or disabled the account): signed out here too.
            if generation == started { try end(.revoked) }
            throw error
        }
    }

    /// A call with the session's ID token; after a 401 `UNAUTHENTICATED`, one refresh and one retry.
    func authorized(_ method: String, _ path: String, body: JSONBody? = nil) async throws -> Data {
        do {
            return try await transport.send(method, path, body: body, bearer: try await idToken(forceRefresh: false))
        } catch BrokerAuthError.unauthenticated {
            return try await transport.send(method, path, body: body, bearer: try await idToken(forceRefresh: true))
        }
    }

    /// A call whose answer is a session body of this session (a guest's upgrade, a password change).
    func renewing(
        _ method: String, _ path: String, body: JSONBody, change: (BrokerUser) -> SessionChange
    )
        async throws -> SignInResult
    {
        let started = generation
        let data = try await authorized(method, path, body: body)
        guard generation == started else { throw BrokerAuthError.sessionChanged }
        let answer = try Self.decode(SessionBody.self, data)
        try keep(answer, change: change(answer.user))
        return SignInResult(user: answer.user, isNewUser: false, customToken: answer.customToken)
    }

    /// A `/v1/me/identities` link: a guest's upgrade answers a session body, any other account the user.
    func link(_ credential: ProviderCredential) async throws -> BrokerUser {
        let started = generation
        let data = try await authorized("POST", "/v1/me/identities/\(credential.provider)", body: credential.body)
        guard generation == started else { throw BrokerAuthError.sessionChanged }
        switch try Self.decode(LinkAnswer.self, data) {
        case .session(let body):
            try keep(body, change: .userUpdated(body.user))
            return body.user
        case .user(let user):
            try update(user)
            return user
        }
    }

    /// A call that makes a signed-in guest an account in place without new tokens (a passkey's registration): the
    /// user is kept with `isAnonymous` false, the broker's only change to it, and reported.
    func upgradingGuest(_ method: String, _ path: String, body: JSONBody) async throws -> Data {
        let started = generation
        let data = try await authorized(method, path, body: body)
        guard generation == started else { throw BrokerAuthError.sessionChanged }
        if var user = state.currentUser, user.isAnonymous {
            user.isAnonymous = false
            try update(user)
        }
        return data
    }

    /// The current ID token, for a sign-up that upgrades a guest (nil when no one is signed in).
    func bearerIfSignedIn() async throws -> String? {
        refreshToken == nil ? nil : try await idToken(forceRefresh: false)
    }

    static func decode<Answer: Decodable>(_ type: Answer.Type, _ data: Data) throws -> Answer {
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw BrokerAuthError.unexpectedResponse(status: 200)
        }
    }
}
