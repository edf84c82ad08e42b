import Foundation

/// The broker's configuration: `providers.json` plus the environment. Provider entries stay raw here;
/// each provider's factory validates its own entry when the registry is built.
public struct BrokerConfig: Sendable {
    /// The `aud` of the broker's ID tokens (and the Firebase project).
    public var projectID: String
    /// The `iss` of the broker's ID tokens; also the base of its discovery document.
    public var issuer: String
    /// Tolerance for provider token times.
    public var clockSkew: TimeInterval
    /// The entries under `providers`, by name.
    public var providers: [String: ConfigReader]
    /// Whether a verified provider email links to an account with that verified email.
    public var linkByVerifiedEmail: Bool
    /// Whether `http://` provider URLs are allowed.
    public var allowInsecureProviderURLs: Bool
    /// Lifetime of the broker's ID tokens.
    public var idTokenTTL: TimeInterval
    /// Lifetime of refresh tokens.
    public var refreshTokenTTL: TimeInterval
    /// The Firebase service-account JSON file, from the config or ``FirebaseEndpoints/credentialsVariable``.
    public var firebaseServiceAccountFile: String?
    /// `firebase.apiBaseUrl`: Firebase Auth's admin API, where a uid's sessions are revoked.
    public var firebaseAPIBaseURL: String
    /// `firebase.customTokenTtlSeconds`: the lifetime of the custom tokens the broker mints (at most an hour).
    public var customTokenTTL: TimeInterval
    /// The proxies whose `X-Forwarded-For` is believed (`trustedProxies`; default none).
    public var trustedProxies: TrustedProxies
    /// The HTTP server's connection limits and timeouts (`server`).
    public var serverLimits: HTTPServerLimits

    /// Parses the config file's bytes; `environment` supplies ``FirebaseEndpoints/credentialsVariable``.
    public init(parsing bytes: [UInt8], environment: [String: String]) throws {
        guard let document = JSONValue.parse(bytes) else { throw ConfigError(field: "(file)", "is not valid JSON") }
        let top = try ConfigReader(path: "", value: document)
        try top.allowOnly([
            "projectId", "issuer", "clockSkewSeconds", "providers", "linking", "allowInsecureProviderUrls", "sessions",
            "firebase", "trustedProxies", "server",
        ])
        projectID = try top.string("projectId")
        issuer = try top.url("issuer", allowInsecure: true)
        clockSkew = TimeInterval(try top.int("clockSkewSeconds", default: 60, range: 0...600))
        allowInsecureProviderURLs = try top.bool("allowInsecureProviderUrls", default: false)

        guard let providerSection = try top.child("providers") else {
            throw ConfigError(field: "providers", "is required")
        }
        var providers: [String: ConfigReader] = [:]
        for name in providerSection.members.keys {
            guard let entry = try providerSection.child(name) else { continue }
            providers[name] = entry
        }
        self.providers = providers

        let linking = try top.child("linking")
        try linking?.allowOnly(["byVerifiedEmail"])
        linkByVerifiedEmail = try linking?.bool("byVerifiedEmail", default: false) ?? false

        let sessions = try top.child("sessions")
        try sessions?.allowOnly(["idTokenTtlSeconds", "refreshTokenTtlDays"])
        idTokenTTL = TimeInterval(try sessions?.int("idTokenTtlSeconds", default: 3600, range: 60...86_400) ?? 3600)
        refreshTokenTTL = TimeInterval(try sessions?.int("refreshTokenTtlDays", default: 30, range: 1...3650) ?? 30) * 86_400

        let firebase = try top.child("firebase")
        try firebase?.allowOnly(["serviceAccountFile", "apiBaseUrl", "customTokenTtlSeconds"])
        if let firebase, firebase.members["apiBaseUrl"] != nil {
            firebaseAPIBaseURL = try firebase.url("apiBaseUrl", allowInsecure: allowInsecureProviderURLs)
        } else {
            firebaseAPIBaseURL = FirebaseEndpoints.identityToolkitBaseURL
        }
        customTokenTTL = TimeInterval(
            try firebase?.int("customTokenTtlSeconds", default: 3600, range: 60...3600) ?? 3600)
        firebaseServiceAccountFile =
            try firebase?.optionalString("serviceAccountFile")
            ?? environment[FirebaseEndpoints.credentialsVariable].flatMap { $0.isEmpty ? nil : $0 }

        trustedProxies = try TrustedProxies(parsing: try top.strings("trustedProxies", nonEmpty: false))
        serverLimits = try HTTPServerLimits(config: try top.child("server"))
    }

    /// Reads and parses the file at `path`.
    public init(contentsOf path: String, environment: [String: String]) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "(file)", "cannot read \(path)")
        }
        try self.init(parsing: Array(data), environment: environment)
    }
}
