public import BrokerModel

/// The `passkeys` section of `providers.json` (contract section 15): WebAuthn sign-in.
public struct PasskeySettings: Sendable, Equatable {
    /// `passkeys.enabled` (default false): whether the passkey routes answer (404 `PROVIDER_NOT_ENABLED` otherwise).
    public var enabled: Bool
    /// `passkeys.rpId`: the relying party id, a registrable domain the origins are under (`example.com`;
    /// `localhost` in development).
    public var rpID: String
    /// `passkeys.rpName`: the name authenticators show; nil: `mail.appName`, then the `projectId`.
    public var rpName: String?
    /// `passkeys.origins`: every origin a ceremony may come from: the web origin, `https://{rpId}` (what iOS apps
    /// with an associated domain send) and an Android app's `android:apk-key-hash:…`.
    public var origins: [String]
    /// `passkeys.maxSignUpsPerAddressPerHour` (1 to 100,000; default 30): the most passwordless sign-ups one client
    /// address may make in an hour (429 `TOO_MANY_ATTEMPTS` beyond), as `anonymous.maxPerAddressPerHour` limits
    /// guests: an endpoint that makes accounts with no secret must not be unbounded.
    public var maxSignUpsPerAddressPerHour: Int

    /// The documented defaults (disabled).
    public static let defaults = PasskeySettings(
        enabled: false, rpID: "example.com", rpName: nil, origins: ["https://example.com"])

    /// Creates settings (unchecked: ``init(config:)`` validates what comes from a file).
    public init(
        enabled: Bool, rpID: String, rpName: String?, origins: [String], maxSignUpsPerAddressPerHour: Int = 30
    ) {
        self.enabled = enabled
        self.rpID = rpID
        self.rpName = rpName
        self.origins = origins
        self.maxSignUpsPerAddressPerHour = maxSignUpsPerAddressPerHour
    }

    /// Reads the `passkeys` section (nil: the defaults), refusing unknown fields, an `rpId` that is not a lower-case
    /// host name, and an origin that is not `https://…`, `http://localhost[:port]` or `android:apk-key-hash:…`.
    public init(config section: ConfigReader?) throws {
        self = .defaults
        guard let section else { return }
        try section.allowOnly(["enabled", "rpId", "rpName", "origins", "maxSignUpsPerAddressPerHour"])
        enabled = try section.bool("enabled", default: false)
        maxSignUpsPerAddressPerHour = try section.int(
            "maxSignUpsPerAddressPerHour", default: Self.defaults.maxSignUpsPerAddressPerHour, range: 1...100_000)
        rpID = try section.optionalString("rpId") ?? Self.defaults.rpID
        rpName = try section.optionalString("rpName")
        origins = try section.strings("origins", nonEmpty: enabled)
        let hostCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard rpID.allSatisfy(hostCharacters.contains), !rpID.hasPrefix("."), !rpID.hasSuffix(".") else {
            throw ConfigError(field: "passkeys.rpId", "must be a lower-case host name such as example.com")
        }
        for origin in origins where !Self.isAllowedOrigin(origin) {
            throw ConfigError(
                field: "passkeys.origins",
                "\(origin) is not an https:// origin, http://localhost or an android:apk-key-hash: origin")
        }
    }

    /// Whether `origin` may be listed: a secure context's origin (no path), or an Android app's.
    static func isAllowedOrigin(_ origin: String) -> Bool {
        if origin.hasPrefix("android:apk-key-hash:") { return origin.count > "android:apk-key-hash:".count }
        let rest: Substring
        if origin.hasPrefix("https://") {
            rest = origin.dropFirst("https://".count)
        } else if origin.hasPrefix("http://localhost") {
            rest = origin.dropFirst("http://".count)
            guard rest == "localhost" || rest.hasPrefix("localhost:") else { return false }
        } else {
            return false
        }
        return !rest.isEmpty && !rest.contains("/") && !rest.contains("?") && !rest.contains("#")
    }
}
