import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerHTTP
import BrokerIdentity
import BrokerModel
import Foundation

/// A stand-in for Google's OAuth 2.0 token endpoint and Firebase Auth's `accounts:update`, as far as the broker
/// uses them to revoke a uid's Firebase sessions. The token endpoint checks the JWT-bearer assertion (signed by
/// ``TestServiceAccount``'s key, `iss`, `aud`, `scope`, at most an hour); `accounts:update` checks the bearer
/// token it issued and records each revocation.
///
/// Paths (under the stubs' base URL): `POST /google/oauth2/token`,
/// `POST /google/identitytoolkit/v1/projects/{project}/accounts:update`.
public final class StubFirebase: @unchecked Sendable {
    /// How the stub misbehaves, on demand.
    public enum Fault: Sendable, Equatable {
        /// Answers normally.
        case none
        /// `accounts:update` answers 503.
        case down
        /// `accounts:update` answers 400 (a permanent refusal).
        case refusing
        /// The token endpoint answers 503.
        case tokenEndpointDown
    }

    /// One revocation Firebase received.
    public struct Revocation: Sendable, Equatable {
        /// The project in the path.
        public var project: String
        /// `localId`.
        public var uid: String
        /// `validSince` (epoch seconds, as Firebase takes it: a string).
        public var validSince: String

        /// Creates a record.
        public init(project: String, uid: String, validSince: String) {
            self.project = project
            self.uid = uid
            self.validSince = validSince
        }
    }

    /// The token path.
    public static let tokenPath = "/google/oauth2/token"
    /// The Identity Toolkit API base path.
    public static let apiPath = "/google/identitytoolkit"

    // Guarded by `lock`.
    private var fault: Fault = .none
    private var issued: Set<String> = []
    private var received: [Revocation] = []
    private var tokenRequests = 0
    private let lock = NSLock()

    init() {}

    /// Sets the fault.
    public func setFault(_ fault: Fault) { lock.withLock { self.fault = fault } }
    /// The revocations received so far, in order.
    public var revocations: [Revocation] { lock.withLock { received } }
    /// How many access tokens were asked for.
    public var tokenRequestCount: Int { lock.withLock { tokenRequests } }

    func addRoutes(_ router: inout Router) {
        router.add("POST", Self.tokenPath) { [self] request, _ in token(request) }
        router.add("POST", Self.apiPath + "/v1/projects/{project}/accounts:update") { [self] request, context in
            update(request, project: context.parameters["project"] ?? "")
        }
    }

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        let fault = lock.withLock {
            tokenRequests += 1
            return self.fault
        }
        if fault == .tokenEndpointDown { return .json(503, .object(["error": "backend_error"])) }
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == FirebaseAdminClient.grantType, let assertion = form["assertion"],
            Self.assertionIsValid(assertion)
        else { return .json(400, .object(["error": "invalid_grant"])) }
        let token = "stub-firebase-access-" + Hex.encode(SecureRandom.bytes(8))
        lock.withLock { _ = issued.insert(token) }
        return .json(200, ["access_token": .string(token), "expires_in": 3599, "token_type": "Bearer"])
    }

    private static func assertionIsValid(_ assertion: String) -> Bool {
        guard let jwt = try? JWT(parsing: assertion), jwt.header["alg"]?.stringValue == "RS256",
            let key = try? TestServiceAccount.key(),
            key.publicKey.verifySHA256(signature: jwt.signature, message: jwt.signingInput),
            jwt.claims["iss"]?.stringValue == TestServiceAccount.clientEmail,
            jwt.claims["aud"]?.stringValue?.hasSuffix(tokenPath) == true,
            jwt.claims["scope"]?.stringValue == FirebaseAdminClient.scope,
            let issuedAt = jwt.claims["iat"]?.intValue, let expiry = jwt.claims["exp"]?.intValue,
            expiry > Int64(Date().timeIntervalSince1970), expiry - issuedAt <= 3600
        else { return false }
        return true
    }

    private func update(_ request: HTTPRequest, project: String) -> HTTPResponse {
        let header = request.headers["authorization"] ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        let (known, fault) = lock.withLock { (issued.contains(token), self.fault) }
        guard known else { return Self.error(401, "UNAUTHENTICATED") }
        switch fault {
        case .down: return Self.error(503, "UNAVAILABLE")
        case .refusing: return Self.error(400, "INVALID_PROJECT_ID")
        case .none, .tokenEndpointDown: break
        }
        guard let body = JSONValue.parse(request.body), let uid = body["localId"]?.stringValue,
            let validSince = body["validSince"]?.stringValue
        else { return Self.error(400, "INVALID_REQUEST") }
        lock.withLock { received.append(Revocation(project: project, uid: uid, validSince: validSince)) }
        return .json(200, ["kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(uid)])
    }

    private static func error(_ status: Int, _ message: String) -> HTTPResponse {
        .json(status, ["error": ["code": .int(Int64(status)), "message": .string(message)]])
    }
}
