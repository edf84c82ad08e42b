public import BrokerModel
public import Foundation

/// The `anonymous` section of `providers.json` (contract section 13): guest accounts, upgraded in place.
public struct AnonymousSettings: Sendable, Equatable {
    /// `anonymous.enabled` (default false): whether `POST /v1/signin/anonymous` makes guests; disabled, it answers
    /// 404 `PROVIDER_NOT_ENABLED`.
    public var enabled: Bool
    /// `anonymous.deleteAfterDays` (1 to 3,650; default 30): a guest with no sign-in and no refresh for this long is
    /// deleted by the sweep.
    public var deleteAfterDays: Int
    /// `anonymous.maxPerAddressPerHour` (1 to 100,000; default 30): the most guests one client address may make in
    /// an hour; more is 429 `TOO_MANY_ATTEMPTS`.
    public var maxPerAddressPerHour: Int

    /// The documented defaults (disabled).
    public static let defaults = AnonymousSettings(enabled: false, deleteAfterDays: 30, maxPerAddressPerHour: 30)

    /// Creates settings (unchecked: ``init(config:)`` validates what comes from a file).
    public init(enabled: Bool, deleteAfterDays: Int, maxPerAddressPerHour: Int) {
        self.enabled = enabled
        self.deleteAfterDays = deleteAfterDays
        self.maxPerAddressPerHour = maxPerAddressPerHour
    }

    /// Reads the `anonymous` section (nil: the defaults), refusing unknown fields and out-of-range numbers.
    public init(config section: ConfigReader?) throws {
        let defaults = AnonymousSettings.defaults
        guard let section else {
            self = defaults
            return
        }
        try section.allowOnly(["enabled", "deleteAfterDays", "maxPerAddressPerHour"])
        enabled = try section.bool("enabled", default: defaults.enabled)
        deleteAfterDays = try section.int("deleteAfterDays", default: defaults.deleteAfterDays, range: 1...3650)
        maxPerAddressPerHour = try section.int(
            "maxPerAddressPerHour", default: defaults.maxPerAddressPerHour, range: 1...100_000)
    }

    /// How long a guest may stay inactive before the sweep deletes it.
    public var inactivityLimit: TimeInterval { TimeInterval(deleteAfterDays) * 86_400 }
}
