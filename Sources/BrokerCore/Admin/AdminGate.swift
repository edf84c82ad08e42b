import BrokerCrypto
public import BrokerModel
public import Foundation

/// Guards the admin API: `Authorization: Bearer <BROKER_ADMIN_TOKEN>`, compared in constant time.
///
/// - No token configured: every admin request gets 401.
/// - A token-like query parameter (`access_token`, `token`, ...) or the token anywhere in the query is refused
///   (query strings end up in logs and proxies).
/// - Failures are counted per client address (``HTTPRequest/clientAddress``, through `trustedProxies`): after
///   `maximumFailures` failed attempts within `window` from one address, that address's admin requests get
///   429 until the window has passed. Guessing is slowed, while another address's failures never lock out a
///   caller, and the CLI (which works on the database directly) stays available.
/// - At most `maximumTrackedAddresses` addresses are remembered; past that, the one whose last failure is
///   oldest is forgotten, so the counters' memory is bounded whatever an attacker sends.
public actor AdminGate {
    /// Failures within `window` from one address that close the gate to that address.
    public static let maximumFailures = 20
    /// The window for counting failures.
    public static let window: TimeInterval = 60
    /// The most client addresses whose failures are remembered at once.
    public static let maximumTrackedAddresses = 10_000

    private static let tokenParameters: Set<String> = ["access_token", "token", "admin_token", "key", "api_key"]

    private let digest: [UInt8]?
    private let clock: any Clock
    /// The failures within `window`, oldest first, by client address.
    private var failures: [String: [Date]] = [:]

    /// Creates the gate for `token` (nil or empty: the admin API is closed).
    public init(token: String?, clock: any Clock) {
        let token = token.flatMap { $0.isEmpty ? nil : $0 }
        digest = token.map { Digest.sha256($0) }
        self.clock = clock
    }

    /// Throws ``AdminAuthenticationError`` (the contract's 401, or 429 when locked out) unless `request` carries the
    /// admin token properly.
    public func check(_ request: HTTPRequest) throws {
        guard let digest else {
            throw AdminAuthenticationError(.disabled)
        }
        let now = clock.now
        let address = request.clientAddress
        try checkNotLockedOut(address, at: now)
        let inQuery = request.query.contains { name, value in
            AdminGate.tokenParameters.contains(name.lowercased()) || constantTimeEquals(Digest.sha256(value), digest)
        }
        guard !inQuery, let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer ",
            constantTimeEquals(Digest.sha256(String(header.dropFirst(7))), digest)
        else {
            recordFailure(from: address, at: now)
            throw AdminAuthenticationError(inQuery ? .tokenInQuery : .invalidToken)
        }
    }

    /// Throws ``AdminAuthenticationError/Code/lockedOut`` when `request`'s client address has failed too often within
    /// the window.
    public func checkNotLockedOut(_ request: HTTPRequest) throws {
        try checkNotLockedOut(request.clientAddress, at: clock.now)
    }

    /// Checks a token presented in a body (the console's sign-in) as ``check(_:)`` checks the header: 429 while
    /// the address is locked out, else 401 (counted) unless it is the admin token.
    public func verify(token: String, for request: HTTPRequest) throws {
        guard let digest else {
            throw AdminAuthenticationError(.disabled)
        }
        let now = clock.now
        try checkNotLockedOut(request.clientAddress, at: now)
        guard !token.isEmpty, constantTimeEquals(Digest.sha256(token), digest) else {
            recordFailure(from: request.clientAddress, at: now)
            throw AdminAuthenticationError(.invalidToken)
        }
    }

    /// Counts a failed authentication of `request` that did not present a token (an unknown console cookie).
    public func countFailure(of request: HTTPRequest) {
        recordFailure(from: request.clientAddress, at: clock.now)
    }

    /// Forgets `address`'s failures outside the window, then throws 429 if `maximumFailures` remain.
    private func checkNotLockedOut(_ address: String, at now: Date) throws {
        var recent = failures[address, default: []]
        recent.removeAll { now.timeIntervalSince($0) >= AdminGate.window }
        failures[address] = recent.isEmpty ? nil : recent
        if recent.count >= AdminGate.maximumFailures, let oldest = recent.first {
            throw AdminAuthenticationError(
                .lockedOut, retryAfter: max(1, Int((oldest + AdminGate.window).timeIntervalSince(now).rounded(.up))))
        }
    }

    /// The key console sessions are stored under (``ConsoleSessions``), derived from the admin token; nil when no
    /// token is configured. Changing the token changes the key, which ends every console session.
    public var consoleSessionKey: [UInt8]? {
        digest.map { HMAC.sha256(key: $0, message: Array("broker-console-session".utf8)) }
    }

    /// The number of client addresses with failures remembered (for tests of the memory bound).
    public var trackedAddressCount: Int { failures.count }

    /// Counts a failure from `address`, making room first when the table is full: expired entries go, then
    /// the address whose last failure is oldest.
    private func recordFailure(from address: String, at now: Date) {
        if failures[address] == nil, failures.count >= AdminGate.maximumTrackedAddresses {
            failures = failures.filter { entry in
                entry.value.contains { now.timeIntervalSince($0) < AdminGate.window }
            }
            if failures.count >= AdminGate.maximumTrackedAddresses,
                let stalest = failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) })
            {
                failures[stalest.key] = nil
            }
        }
        failures[address, default: []].append(now)
    }
}
