import BrokerCrypto
import Foundation

/// Guards the admin API: `Authorization: Bearer <BROKER_ADMIN_TOKEN>`, compared in constant time.
///
/// - No token configured: every admin request gets 401.
/// - A token-like query parameter (`access_token`, `token`, ...) or the token anywhere in the query is refused
///   (query strings end up in logs and proxies).
/// - After `maximumFailures` failed attempts within `window`, every admin request gets 429 until the window has
///   passed: guessing is slowed, and the CLI (which works on the database directly) stays available.
public actor AdminGate {
    /// Failures within `window` that close the gate.
    public static let maximumFailures = 20
    /// The window for counting failures.
    public static let window: TimeInterval = 60

    private static let tokenParameters: Set<String> = ["access_token", "token", "admin_token", "key", "api_key"]

    private let digest: [UInt8]?
    private let clock: any Clock
    private var failures: [Date] = []

    /// Creates the gate for `token` (nil or empty: the admin API is closed).
    public init(token: String?, clock: any Clock) {
        let token = token.flatMap { $0.isEmpty ? nil : $0 }
        digest = token.map { Digest.sha256($0) }
        self.clock = clock
    }

    /// Throws the contract's 401 or 429 unless `request` carries the admin token properly.
    public func check(_ request: HTTPRequest) throws {
        guard let digest else {
            throw APIError(401, "UNAUTHENTICATED", "The admin API is disabled: no admin token is configured.")
        }
        let now = clock.now
        failures.removeAll { now.timeIntervalSince($0) >= AdminGate.window }
        if failures.count >= AdminGate.maximumFailures, let oldest = failures.first {
            var error = APIError(429, "TOO_MANY_ATTEMPTS", "Too many failed admin authentications; try again later.")
            error.headers["Retry-After"] = String(max(1, Int((oldest + AdminGate.window).timeIntervalSince(now).rounded(.up))))
            throw error
        }
        let inQuery = request.query.contains { name, value in
            AdminGate.tokenParameters.contains(name.lowercased()) || constantTimeEquals(Digest.sha256(value), digest)
        }
        guard !inQuery, let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer ",
            constantTimeEquals(Digest.sha256(String(header.dropFirst(7))), digest)
        else {
            failures.append(now)
            throw APIError(
                401, "UNAUTHENTICATED",
                inQuery ? "Admin tokens are accepted only in the Authorization header." : "A valid admin token is required.")
        }
    }
}
