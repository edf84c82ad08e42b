public import BrokerModel
public import Foundation

/// The broker's configuration: `providers.json` plus the environment. Provider entries stay raw here;
/// each provider's factory validates its own entry when the registry is built.
public struct BrokerConfig: Sendable {
    /// The `aud` of the broker's ID tokens (and the project of the sessions other modules mint).
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
    /// `cors.allowedOrigins`: browser origins allowed to call the API (none by default).
    public var corsAllowedOrigins: [String] = []
    /// The `mail` section (contract section 9); nil when absent: the email endpoints answer 501.
    public var mail: MailSettings?
    /// The `outbox` section: retries and giving up.
    public var outbox: OutboxSettings = OutboxSettings()
    /// `lifecycle.onUnlink`: what a provider's "the user left" event does to an account it was the only way in to.
    public var onUnlink: UnlinkPolicy = .disable
    /// The proxies whose `X-Forwarded-For` is believed (`trustedProxies`; default none).
    public var trustedProxies: TrustedProxies = .none
    /// The HTTP server's connection limits and timeouts (`server`).
    public var serverLimits: HTTPServerLimits = .defaults
    /// `console.enabled`: whether `/admin/` serves the admin console (default true).
    public var consoleEnabled = true
    /// `anonymous`: guest accounts (contract section 13; off by default).
    public var anonymous: AnonymousSettings = .defaults
    /// `hooks`: the app's blocking hooks (contract section 16; none by default).
    public var hooks: HookSettings = .none
    /// `events`: where events are delivered (contract section 16; nowhere by default).
    public var events: EventSettings = EventSettings()
    /// `mfa`: second factors (contract section 14; off by default).
    public var mfa: SecondFactorSettings = .defaults
    /// `passkeys`: WebAuthn sign-in (contract section 15; off by default).
    public var passkeys: PasskeySettings = .defaults
    /// The sections modules outside the core read (``ConfigSection``), in the order they were named.
    public private(set) var sections: [any ConfigSection] = []

    /// Parses the config file's bytes, with the top-level `sections` other modules read (a name none reads is
    /// refused); `environment` supplies what a section takes from it. Throws the first ``ConfigError``.
    public init(
        parsing bytes: [UInt8], environment: [String: String], sections: [any ConfigSection.Type] = []
    ) throws {
        try self.init(parsing: bytes, environment: environment, issues: nil, sections: sections)
    }

    /// Parses the config file's bytes. With `issues`, every bad field is recorded there and parsing goes on with
    /// that field's default, so that all errors are reported at once; only a document that is not a JSON object
    /// still throws. Without, the first bad field throws.
    public init(
        parsing bytes: [UInt8], environment: [String: String], issues: ConfigIssues?,
        sections: [any ConfigSection.Type] = []
    ) throws {
        try self.init(parsing: bytes, environment: environment, issues: issues, file: "(file)", sections: sections)
    }

    /// Parses the config file's bytes; a syntax error names `file` (the file's path as given).
    init(
        parsing bytes: [UInt8], environment: [String: String], issues: ConfigIssues?, file: String,
        sections: [any ConfigSection.Type]
    ) throws {
        guard let document = JSONValue.parse(bytes) else {
            let where_ = JSONSyntaxError.firstError(in: bytes).map(\.description) ?? "is not valid JSON"
            throw ConfigError(field: file, where_)
        }
        func read<T>(_ fallback: T, _ body: () throws -> T) throws -> T {
            guard let issues else { return try body() }
            return try issues.attempt(fallback, body)
        }
        let top = try ConfigReader(path: "", value: document, issues: issues)
        try top.allowOnly(
            Set(sections.flatMap { $0.names }).union([
                "projectId", "issuer", "clockSkewSeconds", "providers", "linking", "allowInsecureProviderUrls",
                "sessions", "cors", "mail", "outbox", "trustedProxies", "server", "console", "lifecycle", "anonymous",
                "hooks", "events",
                "mfa", "passkeys",
            ]))
        projectID = try read("") { try top.string("projectId") }
        issuer = try read("") { try top.url("issuer", allowInsecure: true) }
        clockSkew = TimeInterval(try read(60) { try top.int("clockSkewSeconds", default: 60, range: 0...600) })
        allowInsecureProviderURLs = try read(false) { try top.bool("allowInsecureProviderUrls", default: false) }

        var providers: [String: ConfigReader] = [:]
        let providerSection = try read(nil) { () throws -> ConfigReader? in
            guard let section = try top.child("providers") else { throw ConfigError(field: "providers", "is required") }
            return section
        }
        for name in providerSection?.members.keys.sorted() ?? [] {
            guard let entry = try read(nil, { try providerSection?.child(name) }) else { continue }
            providers[name] = entry
        }
        self.providers = providers

        let linking = try read(nil) { try top.child("linking") }
        try linking?.allowOnly(["byVerifiedEmail"])
        linkByVerifiedEmail = try read(false) { try linking?.bool("byVerifiedEmail", default: false) ?? false }

        let sessions = try read(nil) { try top.child("sessions") }
        try sessions?.allowOnly(["idTokenTtlSeconds", "refreshTokenTtlDays"])
        idTokenTTL = TimeInterval(
            try read(3600) { try sessions?.int("idTokenTtlSeconds", default: 3600, range: 60...86_400) ?? 3600 })
        refreshTokenTTL =
            TimeInterval(try read(30) { try sessions?.int("refreshTokenTtlDays", default: 30, range: 1...3650) ?? 30 })
            * 86_400

        let cors = try read(nil) { try top.child("cors") }
        try cors?.allowOnly(["allowedOrigins"])
        corsAllowedOrigins = try read([]) {
            let origins = try cors?.strings("allowedOrigins", nonEmpty: false) ?? []
            for origin in origins { try CORSPolicy.validate(origin, field: "cors.allowedOrigins") }
            return origins
        }

        let project = projectID
        outbox = try read(OutboxSettings()) { try OutboxSettings(reading: try top.child("outbox")) }
        onUnlink = try read(.disable) { try UnlinkPolicy(reading: try top.child("lifecycle")) }
        mail = try read(nil) {
            try top.child("mail").map { try MailSettings(reading: $0, projectID: project, environment: environment) }
        }
        trustedProxies = try read(.none) {
            try TrustedProxies(parsing: try top.strings("trustedProxies", nonEmpty: false))
        }
        // The first bad `server` field is reported; the section then falls back to its defaults.
        serverLimits = try read(.defaults) { try HTTPServerLimits(config: try top.child("server")) }
        let console = try read(nil) { try top.child("console") }
        try console?.allowOnly(["enabled"])
        consoleEnabled = try read(true) { try console?.bool("enabled", default: true) ?? true }
        anonymous = try read(.defaults) { try AnonymousSettings(config: try top.child("anonymous")) }
        let insecure = allowInsecureProviderURLs
        hooks = try read(.none) { try HookSettings(reading: try top.child("hooks"), allowInsecure: insecure) }
        events = try read(EventSettings()) { try EventSettings(reading: try top.child("events"), allowInsecure: insecure) }
        mfa = try read(.defaults) { try SecondFactorSettings(config: try top.child("mfa")) }
        passkeys = try read(.defaults) { try PasskeySettings(config: try top.child("passkeys")) }
        for type in sections {
            let core = self
            let section = try type.init(reading: top, config: core, environment: environment, issues: issues)
            self.sections.append(section)
        }
    }

    /// The section of type `type` as read, or nil when this config was parsed without it.
    public func section<Section: ConfigSection>(_ type: Section.Type) -> Section? {
        sections.lazy.compactMap { $0 as? Section }.first
    }

    /// Reads and parses the file at `path` (see ``init(parsing:environment:issues:sections:)`` for `issues` and
    /// `sections`).
    public init(
        contentsOf path: String, environment: [String: String], issues: ConfigIssues? = nil,
        sections: [any ConfigSection.Type] = []
    ) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "(file)", "cannot read \(path): \(Self.whyUnreadable(path))")
        }
        try self.init(parsing: Array(data), environment: environment, issues: issues, file: path, sections: sections)
    }

    /// Why the file at `path` cannot be read, as a person fixes it: it is missing (with the folder it was looked
    /// for in), a folder, or not readable by this user.
    static func whyUnreadable(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            return "no such file (looked in \(folder); name another with --config or BROKER_CONFIG)"
        }
        if isDirectory.boolValue { return "it is a folder, not a file" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied (the broker runs as this user)" }
        return "it could not be read"
    }
}
