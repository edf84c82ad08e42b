public import BrokerModel

/// The `mfa` section of `providers.json` (contract section 14): second factors.
public struct SecondFactorSettings: Sendable, Equatable {
    /// `mfa.totp.enabled` (default false): whether accounts may enrol authenticator apps, and sign-ins of accounts
    /// that did are asked for a code. Needs `BROKER_ENCRYPTION_KEY` (the secrets are sealed with it).
    public var totpEnabled: Bool
    /// `mfa.totp.issuer`: the name authenticator apps show; nil: `mail.appName`, then the `projectId`.
    public var issuer: String?
    /// `mfa.totp.digits` (6 to 8; default 6).
    public var digits: Int
    /// `mfa.totp.periodSeconds` (15 to 120; default 30).
    public var periodSeconds: Int

    /// The documented defaults (disabled).
    public static let defaults = SecondFactorSettings(totpEnabled: false, issuer: nil, digits: 6, periodSeconds: 30)

    /// Creates settings (unchecked: ``init(config:)`` validates what comes from a file).
    public init(totpEnabled: Bool, issuer: String?, digits: Int, periodSeconds: Int) {
        self.totpEnabled = totpEnabled
        self.issuer = issuer
        self.digits = digits
        self.periodSeconds = periodSeconds
    }

    /// Reads the `mfa` section (nil: the defaults), refusing unknown fields and out-of-range numbers.
    public init(config section: ConfigReader?) throws {
        let defaults = SecondFactorSettings.defaults
        self = defaults
        guard let section else { return }
        try section.allowOnly(["totp"])
        guard let totp = try section.child("totp") else { return }
        try totp.allowOnly(["enabled", "issuer", "digits", "periodSeconds"])
        totpEnabled = try totp.bool("enabled", default: defaults.totpEnabled)
        issuer = try totp.optionalString("issuer")
        digits = try totp.int("digits", default: defaults.digits, range: 6...8)
        periodSeconds = try totp.int("periodSeconds", default: defaults.periodSeconds, range: 15...120)
    }
}
