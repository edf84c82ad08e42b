public import BrokerModel

/// What happens to an account whose only way in was a provider whose user left the app (`lifecycle.onUnlink`,
/// contract section 10): disabled (the default; that provider's next sign-in enables it again) or deleted.
public enum UnlinkPolicy: String, Sendable, Equatable, CaseIterable {
    /// The account is disabled, its link kept.
    case disable
    /// The account is deleted, through ``AccountDeletion``.
    case delete

    /// Parses the `lifecycle` section (nil: the default, `disable`).
    public init(reading section: ConfigReader?) throws {
        self = .disable
        guard let section else { return }
        try section.allowOnly(["onUnlink"])
        guard let text = try section.optionalString("onUnlink") else { return }
        guard let policy = UnlinkPolicy(rawValue: text) else {
            throw ConfigError(field: section.field("onUnlink"), "must be \"disable\" or \"delete\"")
        }
        self = policy
    }
}
