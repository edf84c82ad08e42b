import BrokerCore
import BrokerHTTP
public import BrokerCrypto
import BrokerIdentity
import BrokerModel
public import Foundation

/// A stand-in for Sign in with Apple's token and revoke endpoints (under the stubs' base URL):
/// `POST /apple/auth/token` exchanges a code issued by ``issueCode(subject:)`` once, for a refresh token and an ID
/// token signed with the stub's Apple keys; `POST /apple/auth/revoke` records a revoked refresh token. Both check
/// `client_id` and the client secret: an ES256 JWT under ``developerKey`` with `kid` ``keyID``, `iss` ``teamID``,
/// `sub` the client id, `aud` `https://appleid.apple.com`, not expired and at most 6 months long. Faults on demand.
public final class StubAppleAuth: @unchecked Sendable {
    /// How the stub misbehaves.
    public enum Fault: Sendable, Equatable {
        /// Answers normally.
        case none
        /// Both endpoints answer 503.
        case down
        /// Both endpoints wait this long first.
        case slow(milliseconds: Int)
        /// The token endpoint refuses every code (`invalid_grant`); the revoke endpoint answers `invalid_client`.
        case refusing
    }

    /// The team id the client secret must name.
    public static let teamID = "STUBTEAM01"
    /// The key id the client secret must name.
    public static let keyID = "STUBKEY001"
    /// The client id (the stub app's bundle id).
    public static let clientID = StubProviders.appleAudience
    /// The endpoints' base path.
    public static let basePath = "/apple"

    /// The developer's Sign in with Apple key (write it with ``writeKeyFile(into:)`` for the broker's config):
    /// one per process, so a broker configured before its stubs exist (or in another process, from the same
    /// file) signs with the key every stub instance checks.
    public let developerKey: P256PrivateKey
    private static let sharedKey = Result { try P256PrivateKey.generate() }
    private let keys: StubKeySet

    // Guarded by `lock`.
    private var fault: Fault = .none
    private var codes: [String: String] = [:]
    private var issued: [String] = []
    private var revoked: [String] = []
    private var revokeCalls = 0
    private var tokenCalls = 0
    private let lock = NSLock()

    init(keys: StubKeySet) throws {
        self.keys = keys
        developerKey = try Self.sharedKey.get()
    }

    /// Sets the fault.
    public func setFault(_ fault: Fault) { lock.withLock { self.fault = fault } }
    /// A fresh authorization code for `subject`, good for one exchange.
    public func issueCode(subject: String) -> String {
        let code = "c" + Hex.encode(SecureRandom.bytes(16)) + ".0.stub"
        lock.withLock { codes[code] = subject }
        return code
    }
    /// The refresh tokens handed out so far, in order.
    public var issuedRefreshTokens: [String] { lock.withLock { issued } }
    /// The refresh tokens revoked so far, in order.
    public var revokedTokens: [String] { lock.withLock { revoked } }
    /// Revoke calls received (accepted or not).
    public var revokeCallCount: Int { lock.withLock { revokeCalls } }
    /// Token calls received (accepted or not).
    public var tokenCallCount: Int { lock.withLock { tokenCalls } }

    /// Writes ``developerKey`` as a `.p8` file into `directory`; returns its path.
    public func writeKeyFile(into directory: URL) throws -> String {
        let file = directory.appendingPathComponent("AuthKey_\(Self.keyID).p8")
        try Data(try developerKey.pemPKCS8().utf8).write(to: file)
        return file.path
    }

    func addRoutes(_ router: inout Router) {
        router.add("POST", Self.basePath + "/auth/token") { [self] request, _ in try await token(request) }
        router.add("POST", Self.basePath + "/auth/revoke") { [self] request, _ in try await revoke(request) }
    }

    private func applyFault(counting counter: ReferenceWritableKeyPath<StubAppleAuth, Int>) async throws -> Fault {
        let fault = lock.withLock {
            self[keyPath: counter] += 1
            return self.fault
        }
        if case .slow(let milliseconds) = fault { try await Task.sleep(for: .milliseconds(max(0, min(milliseconds, 30_000)))) }
        return fault
    }

    private func token(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fault = try await applyFault(counting: \.tokenCalls)
        if fault == .down { return .json(503, ["error": "server_error"]) }
        let form = StubForm.parse(request.body)
        guard form["client_id"] == Self.clientID, let secret = form["client_secret"], secretIsValid(secret) else {
            return .json(400, ["error": "invalid_client"])
        }
        guard form["grant_type"] == "authorization_code", fault != .refusing, let code = form["code"],
            let subject = lock.withLock({ codes.removeValue(forKey: code) })
        else { return .json(400, ["error": "invalid_grant"]) }
        let refresh = "r" + Hex.encode(SecureRandom.bytes(16)) + ".0.stub-refresh"
        lock.withLock { issued.append(refresh) }
        let now = Int64(Date().timeIntervalSince1970)
        let idToken = try TestTokens.sign(
            claims: [
                "iss": "https://appleid.apple.com", "aud": .string(Self.clientID), "sub": .string(subject),
                "iat": .int(now), "exp": .int(now + 600),
            ],
            key: keys.current.key, kid: keys.current.id)
        return .json(
            200,
            [
                "access_token": .string("a" + Hex.encode(SecureRandom.bytes(8))), "token_type": "Bearer",
                "expires_in": 3600, "refresh_token": .string(refresh), "id_token": .string(idToken),
            ])
    }

    private func revoke(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fault = try await applyFault(counting: \.revokeCalls)
        if fault == .down { return .json(503, ["error": "server_error"]) }
        let form = StubForm.parse(request.body)
        guard fault != .refusing, form["client_id"] == Self.clientID, let secret = form["client_secret"],
            secretIsValid(secret)
        else { return .json(400, ["error": "invalid_client"]) }
        guard form["token_type_hint"] == "refresh_token", let token = form["token"], !token.isEmpty else {
            return .json(400, ["error": "invalid_request"])
        }
        lock.withLock { revoked.append(token) }
        return HTTPResponse(status: 200)
    }

    /// Whether `secret` is a client secret Apple would take from the stub app's developer.
    func secretIsValid(_ secret: String) -> Bool {
        guard let jwt = try? JWT(parsing: secret), jwt.header["alg"]?.stringValue == "ES256",
            jwt.header["kid"]?.stringValue == Self.keyID,
            developerKey.publicKey.verifySHA256(signature: jwt.signature, message: jwt.signingInput),
            jwt.claims["iss"]?.stringValue == Self.teamID, jwt.claims["sub"]?.stringValue == Self.clientID,
            jwt.claims["aud"]?.stringValue == "https://appleid.apple.com",
            let issuedAt = jwt.claims["iat"]?.intValue, let expiry = jwt.claims["exp"]?.intValue,
            expiry > Int64(Date().timeIntervalSince1970), expiry > issuedAt, expiry - issuedAt <= 15_777_000
        else { return false }
        return true
    }
}
