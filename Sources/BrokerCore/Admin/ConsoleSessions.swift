import BrokerCrypto
public import BrokerModel
package import BrokerStorage
public import Foundation

/// The admin console's browser sessions: the admin token is exchanged once for a random cookie value, stored
/// only as its HMAC-SHA256 under a key derived from the admin token (so a session can be ended, a database leak
/// yields no usable cookie, and changing the admin token ends every session), with an expiry. Changes made with the cookie also need the session's CSRF token in ``csrfHeader``: an HMAC of the
/// cookie's value, which only the console's own page can read (from the sign-in answer or
/// `GET /admin/v1/console/session`), compared in constant time.
public struct ConsoleSessions: Sendable {
    /// The cookie's name.
    public static let cookieName = "broker_console"
    /// The header a change made with the cookie carries the CSRF token in.
    public static let csrfHeader = "x-csrf-token"
    /// How long a console session lasts.
    public static let lifetime: TimeInterval = 8 * 3600

    let store: any BrokerStore
    let clock: any Clock
    let key: [UInt8]

    /// Creates the service over `store`; `key` is ``AdminGate/consoleSessionKey``.
    package init(store: any BrokerStore, clock: any Clock, key: [UInt8]) {
        self.store = store
        self.clock = clock
        self.key = key
    }

    /// A session just begun: the cookie's value (never stored), its CSRF token and when it ends.
    public struct Grant: Sendable {
        /// The cookie's value.
        public var cookieValue: String
        /// The CSRF token of the session.
        public var csrfToken: String
        /// When the session ends.
        public var expiresAt: Date
    }

    /// Begins a session (the caller has checked the admin token).
    public func begin() async throws -> Grant {
        let value = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock.now
        let expires = now + Self.lifetime
        try await store.insertConsoleSession(
            ConsoleSessionRecord(tokenHash: hash(value), createdAt: now, expiresAt: expires))
        return Grant(cookieValue: value, csrfToken: Self.csrfToken(for: value), expiresAt: expires)
    }

    /// The live session `request`'s cookie names, or nil (no cookie, unknown, or expired).
    public func session(of request: HTTPRequest) async throws -> ConsoleSessionRecord? {
        guard let value = Self.cookieValue(of: request) else { return nil }
        guard let record = try await store.consoleSession(hash: hash(value)), record.expiresAt > clock.now else {
            return nil
        }
        return record
    }

    /// Whether `request` carries the CSRF token of its cookie's session.
    public static func hasValidCSRFToken(_ request: HTTPRequest) -> Bool {
        guard let value = cookieValue(of: request), let sent = request.headers[csrfHeader], !sent.isEmpty else {
            return false
        }
        return constantTimeEquals(Digest.sha256(sent), Digest.sha256(csrfToken(for: value)))
    }

    /// Ends the session of `request`'s cookie; true when there was one.
    @discardableResult
    public func end(_ request: HTTPRequest) async throws -> Bool {
        guard let value = Self.cookieValue(of: request) else { return false }
        return try await store.deleteConsoleSession(hash: hash(value))
    }

    /// The console cookie's value in `request`, when it has one of a plausible length.
    public static func cookieValue(of request: HTTPRequest) -> String? {
        guard let value = request.cookie(cookieName),
            (16...128).contains(value.utf8.count)
        else { return nil }
        return value
    }

    /// The CSRF token of the session whose cookie is `value`.
    public static func csrfToken(for value: String) -> String {
        Base64URL.encode(HMAC.sha256(key: Array(value.utf8), message: Array("broker-console-csrf".utf8)))
    }

    /// The stored form of a cookie value.
    public func hash(_ value: String) -> String { Hex.encode(HMAC.sha256(key: key, message: Array(value.utf8))) }

    /// The `Set-Cookie` value that sets the session cookie.
    public static func setCookie(_ grant: Grant) -> String {
        "\(cookieName)=\(grant.cookieValue); Path=/admin; Max-Age=\(Int(lifetime)); HttpOnly; Secure; SameSite=Strict"
    }

    /// The `Set-Cookie` value that removes the cookie.
    public static let clearCookie = "\(cookieName)=; Path=/admin; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
}
