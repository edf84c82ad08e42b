public import BrokerModel
import Foundation

/// Top-level sections of `providers.json` that a module outside the core reads, as each provider reads its own entry:
/// the executable names the sections of the modules it runs when it parses the config, and a top-level name no module
/// reads is refused as any unknown field is.
public protocol ConfigSection: Sendable {
    /// The top-level names this section reads.
    static var names: Set<String> { get }

    /// Reads its names from `top` (absent: the defaults) with the core's part of the config, `config`, read already.
    /// With `issues`, a bad field is recorded and its default kept; without, the first bad field throws.
    init(reading top: ConfigReader, config: BrokerConfig, environment: [String: String], issues: ConfigIssues?) throws

    /// What `check-config` warns about (a file the section names that cannot be read is an error, in `issues`).
    func warnings(config: BrokerConfig, recording issues: ConfigIssues) -> [ConfigError]
}
