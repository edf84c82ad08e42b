import BrokerCore
public import BrokerModel
import Foundation

/// The `firebaseCompat` section of `providers.json` (contract section 11): the second listener that speaks
/// Firebase Auth's wire protocol, so Firebase's own SDKs work against the broker unchanged.
public struct FirebaseCompatSettings: Sendable, Equatable {
    /// `enabled`: whether the listener runs (default false).
    public var enabled: Bool
    /// `host`: the address it binds (default `127.0.0.1`; a non-loopback one needs `allowRemote`).
    public var host: String
    /// `port`: its port (default 9099, the Auth emulator's; 0 picks a free one).
    public var port: Int
    /// `allowRemote`: lets `host` be a non-loopback address. `Bearer owner` is admin on this listener, so
    /// anyone who reaches it is an administrator.
    public var allowRemote: Bool
    /// `acceptUnsignedCustomTokens`: lets `signInWithCustomToken` take `alg: none` tokens (refused together
    /// with `allowRemote`).
    public var acceptUnsignedCustomTokens: Bool
    /// `emailEnumerationProtection`: a wrong email or password answers `INVALID_LOGIN_CREDENTIALS` (true, the
    /// default) rather than `EMAIL_NOT_FOUND` / `INVALID_PASSWORD`.
    public var emailEnumerationProtection: Bool
    /// `allowedOrigins`: web origins besides the loopback ones (`http://localhost[:port]`, `http://127.0.0.1[:port]`,
    /// `http://[::1][:port]`) whose pages may call the listener (exact origins, `http(s)://host[:port]`); a request
    /// with any other `Origin` is refused (default none).
    public var allowedOrigins: [String] = []

    /// The defaults: off, loopback, port 9099, nothing relaxed.
    public static let defaults = FirebaseCompatSettings(
        enabled: false, host: "127.0.0.1", port: 9099, allowRemote: false, acceptUnsignedCustomTokens: false,
        emailEnumerationProtection: true)

    /// Creates settings (unchecked: ``init(config:)`` validates what comes from a file).
    public init(
        enabled: Bool, host: String, port: Int, allowRemote: Bool, acceptUnsignedCustomTokens: Bool,
        emailEnumerationProtection: Bool, allowedOrigins: [String] = []
    ) {
        self.allowedOrigins = allowedOrigins
        self.enabled = enabled
        self.host = host
        self.port = port
        self.allowRemote = allowRemote
        self.acceptUnsignedCustomTokens = acceptUnsignedCustomTokens
        self.emailEnumerationProtection = emailEnumerationProtection
    }

    /// Reads the section (nil: the defaults), refusing unknown fields, a non-loopback `host` without
    /// `allowRemote`, an `allowedOrigins` entry that is not an exact origin, and `allowRemote` together with
    /// `acceptUnsignedCustomTokens`.
    public init(config section: ConfigReader?) throws {
        let defaults = FirebaseCompatSettings.defaults
        guard let section else {
            self = defaults
            return
        }
        try section.allowOnly([
            "enabled", "host", "port", "allowRemote", "acceptUnsignedCustomTokens", "emailEnumerationProtection",
            "allowedOrigins",
        ])
        enabled = try section.bool("enabled", default: defaults.enabled)
        host = try section.optionalString("host") ?? defaults.host
        port = try section.int("port", default: defaults.port, range: 0...65_535)
        allowRemote = try section.bool("allowRemote", default: defaults.allowRemote)
        acceptUnsignedCustomTokens = try section.bool(
            "acceptUnsignedCustomTokens", default: defaults.acceptUnsignedCustomTokens)
        emailEnumerationProtection = try section.bool(
            "emailEnumerationProtection", default: defaults.emailEnumerationProtection)
        allowedOrigins = try section.strings("allowedOrigins", nonEmpty: false)
        for origin in allowedOrigins { try CORSPolicy.validate(origin, field: section.field("allowedOrigins")) }
        guard host.utf8.count <= 253, !host.contains(where: { $0 == "/" || $0 == " " || $0 == "[" || $0 == "]" }) else {
            throw ConfigError(field: section.field("host"), "must be an IP address or a host name")
        }
        if !allowRemote && !FirebaseCompatSettings.isLoopback(host) {
            throw ConfigError(
                field: section.field("host"),
                "\"\(host)\" is not a loopback address: Bearer owner is admin on this listener; set allowRemote to "
                    + "true to bind it anyway")
        }
        if allowRemote && acceptUnsignedCustomTokens {
            throw ConfigError(
                field: section.field("acceptUnsignedCustomTokens"),
                "cannot be true together with allowRemote: anyone who reaches the listener could sign in as anyone")
        }
    }

    /// Whether `host` names the loopback interface: `localhost`, an address in 127.0.0.0/8, or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }
    }

    /// What starts but deserves a warning: a remote listener, or unsigned custom tokens.
    public var warnings: [ConfigError] {
        guard enabled else { return [] }
        var warnings: [ConfigError] = []
        if allowRemote {
            warnings.append(
                ConfigError.warning(
                    field: "firebaseCompat.allowRemote",
                    "is true: the Firebase-compatible listener on \(host) accepts Bearer owner as admin from anyone "
                        + "who reaches it; never point it at a production database"))
        }
        if acceptUnsignedCustomTokens {
            warnings.append(
                ConfigError.warning(
                    field: "firebaseCompat.acceptUnsignedCustomTokens",
                    "is true: signInWithCustomToken accepts unsigned (alg none) tokens, so any caller may sign in "
                        + "as any uid; for local tests only"))
        }
        return warnings
    }
}
