import BrokerCore
import BrokerCrypto
import BrokerIdentity
public import BrokerModel
public import Foundation

/// Why a call to Firebase's admin API failed: worth another try later, or refused for good.
public struct FirebaseAdminError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// No answer, a timeout, a 5xx or a 429: try again later.
        case unavailable
        /// Firebase or its token endpoint refused the call (another 4xx): trying again will not help.
        case refused
    }

    /// The reason.
    public var code: Code
    /// Detail for logs (a status and Firebase's error code; never a token).
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

/// Firebase Auth's admin API, as far as the broker needs it: ending a uid's Firebase sessions (contract section 2,
/// "Revoking a uid's Firebase sessions"). It authenticates with an OAuth 2.0 access token from the service
/// account's `token_uri` (a JWT-bearer grant whose assertion is signed with the service account's key), cached
/// until a minute before it expires.
public actor FirebaseAdminClient {
    /// The scope the access token asks for.
    public static let scope = FirebaseEndpoints.identityToolkitScope
    /// The grant type of the token request.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    private let account: FirebaseServiceAccount
    private let projectID: String
    private let apiBaseURL: String
    private let client: any HTTPClient
    private let clock: any Clock
    private var cached: (token: String, expiresAt: Date)?

    /// Creates a client for `projectID` at `apiBaseURL` (``FirebaseEndpoints/identityToolkitBaseURL`` in
    /// production).
    public init(
        account: FirebaseServiceAccount, projectID: String, apiBaseURL: String, client: any HTTPClient, clock: any Clock
    ) {
        self.account = account
        self.projectID = projectID
        self.apiBaseURL = apiBaseURL
        self.client = client
        self.clock = clock
    }

    /// Makes Firebase refuse the refresh tokens of `uid` issued before `validSince` (whole epoch seconds, rounded
    /// down): `POST {apiBaseUrl}/v1/projects/{projectId}/accounts:update {"localId", "validSince"}`. A uid Firebase
    /// does not know has no sessions to end, which is success.
    public func revokeSessions(uid: AccountID, validSince: Date) async throws {
        let seconds = Int64(max(0, min(validSince.timeIntervalSince1970, 1e11)).rounded(.down))
        let body: JSONValue = ["localId": .string(uid.rawValue), "validSince": .string(String(seconds))]
        let url = apiBaseURL + "/v1/projects/" + Self.pathSegment(projectID) + "/accounts:update"
        for attempt in 0..<2 {
            let token = try await accessToken()
            let response = try await send(
                HTTPClientRequest(
                    method: "POST", url: url,
                    headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                    body: body.serialized()),
                call: "accounts:update")
            if response.status == 200 { return }
            let code = JSONValue.parse(response.body)?["error"]?["message"]?.stringValue ?? ""
            if code.hasPrefix("USER_NOT_FOUND") { return }
            if response.status == 401 && attempt == 0 {
                cached = nil  // the access token was revoked or expired early: get a new one, once
                continue
            }
            throw Self.failure(status: response.status, call: "accounts:update", code: code)
        }
        throw FirebaseAdminError(.unavailable, "accounts:update: access token refused twice")
    }

    /// A valid access token, from the cache or from a new JWT-bearer grant.
    func accessToken() async throws -> String {
        let now = clock.now
        if let cached, cached.expiresAt > now + 60 { return cached.token }
        let issuedAt = Int64(now.timeIntervalSince1970)
        let assertion = try JWT.encode(
            header: ["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID.rawValue)],
            claims: [
                "iss": .string(account.clientEmail), "scope": .string(Self.scope), "aud": .string(account.tokenURI),
                "iat": .int(issuedAt), "exp": .int(issuedAt + 3600),
            ],
            sign: account.privateKey.signSHA256)
        let form = "grant_type=" + Self.formEscaped(Self.grantType) + "&assertion=" + Self.formEscaped(assertion)
        let response = try await send(
            HTTPClientRequest(
                method: "POST", url: account.tokenURI,
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8)),
            call: "token")
        guard response.status == 200 else {
            let code = JSONValue.parse(response.body)?["error"]?.stringValue ?? ""
            throw Self.failure(status: response.status, call: "token", code: code)
        }
        guard let body = JSONValue.parse(response.body), let token = body["access_token"]?.stringValue,
            !token.isEmpty, token.utf8.count <= 4096
        else { throw FirebaseAdminError(.unavailable, "token: no access_token in the answer") }
        // Bounded: a lifetime from outside is taken between a minute and an hour.
        let lifetime = min(3600, max(60, body["expires_in"]?.intValue ?? 3600))
        cached = (token, now + TimeInterval(lifetime))
        return token
    }

    private func send(_ request: HTTPClientRequest, call: String) async throws -> HTTPClientResponse {
        do {
            return try await client.send(request)
        } catch {
            throw FirebaseAdminError(.unavailable, "\(call): \(error)")
        }
    }

    private static func failure(status: Int, call: String, code: String) -> FirebaseAdminError {
        let detail = "\(call): status \(status)\(code.isEmpty ? "" : " \(code.prefix(64))")"
        return status >= 500 || status == 429 || status == 0
            ? FirebaseAdminError(.unavailable, detail) : FirebaseAdminError(.refused, detail)
    }

    /// `application/x-www-form-urlencoded` escaping: unreserved characters stay, everything else is `%XX`.
    static func formEscaped(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                escaped += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return escaped
    }

    /// A project id as one path segment (Firebase's ids are `[a-z0-9-]`; anything else is escaped).
    static func pathSegment(_ text: String) -> String { formEscaped(text) }
}

extension FirebaseAdminError {
    /// None: an internal failure (``CodedError``). A failed call to another service.
    public var refusal: Refusal? { nil }
}
