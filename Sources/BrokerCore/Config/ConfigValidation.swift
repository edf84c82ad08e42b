public import BrokerIdentity
public import BrokerModel
import Foundation

/// The one validation `broker check-config` and `broker serve` share: the config file (every error at once), the
/// providers it enables, the service account, the admin token and the database location, plus warnings for what
/// starts but will not work as meant. `check-config` passes exactly what `serve` accepts.
public struct ConfigValidation: Sendable {
    /// Every error found; the broker must not start when there is one.
    public var errors: [ConfigError]
    /// What starts but is probably wrong (problems of severity `.warning`).
    public var warnings: [ConfigError]
    /// The parsed configuration when there is no error.
    public var config: BrokerConfig?

    /// Whether `audience` is a placeholder such as the shipped `providers.json` holds (a sign-in with a real token
    /// fails on it): its first label is a capitalised `WORDS_WITH_UNDERSCORES` name, or it is `com.example.app`.
    public static func isPlaceholderAudience(_ audience: String) -> Bool {
        if audience == "com.example.app" { return true }
        let label = audience.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        return label.contains("_")
            && label.utf8.allSatisfy { (0x41...0x5A).contains($0) || $0 == 0x5F || (0x30...0x39).contains($0) }
    }

    /// Validates the file at `sources.configPath` and the database at `sources.database` with `environment`;
    /// `listenPort` (the port `serve` listens on, or the `--port` that `check-config` was given) is compared with
    /// the issuer's. `databaseURLError` is the driver's check of a PostgreSQL URL, the one `serve` runs before it
    /// connects (the core cannot parse what libpq reads); without it such a URL is not checked here. `sections` are
    /// the top-level sections of the modules `serve` runs (``ConfigSection``).
    public init(
        sources: ConfigSources, environment: [String: String], context: ProviderContext, listenPort: Int?,
        sections: [any ConfigSection.Type] = [], databaseURLError: (@Sendable (String) -> ConfigError?)? = nil
    ) {
        let issues = ConfigIssues()
        var warnings: [ConfigError] = []
        var config: BrokerConfig?
        do {
            config = try BrokerConfig(
                contentsOf: sources.configPath, environment: environment, issues: issues, sections: sections)
        } catch let error as ConfigError {
            issues.record(error)
        } catch {
            issues.record(ConfigError(field: "(file)", "\(error)"))
        }
        if let config {
            var providerContext = context
            providerContext.clockSkew = config.clockSkew
            providerContext.allowInsecureURLs = config.allowInsecureProviderURLs
            do {
                providerContext.cipher = try OutboxCipher.fromEnvironment(environment)
                if config.mfa.totpEnabled, providerContext.cipher == nil {
                    issues.record(
                        ConfigError(
                            field: "mfa.totp.enabled",
                            "needs BROKER_ENCRYPTION_KEY or BROKER_ENCRYPTION_KEY_FILE (32 bytes, base64): the "
                                + "authenticator secrets are sealed with it"))
                }
            } catch let error as ConfigError {
                issues.record(error)
            } catch {}
            Self.checkProviders(config, context: providerContext, issues: issues)
            warnings += Self.placeholderWarnings(config)
            warnings += Self.issuerWarnings(config, listenPort: listenPort)
            for section in config.sections { warnings += section.warnings(config: config, recording: issues) }
        }
        do { _ = try Self.adminToken(environment) } catch let error as ConfigError { issues.record(error) } catch {}
        for error in Self.databaseErrors(sources.database, environment: environment) { issues.record(error) }
        if let error = databaseURLError?(sources.database) { issues.record(error) }
        errors = issues.errors
        self.warnings = warnings
        self.config = errors.isEmpty ? config : nil
    }

    /// The configuration, or ``ConfigErrors`` with every error.
    public func validConfig() throws -> BrokerConfig {
        guard errors.isEmpty, let config else {
            throw ConfigErrors(errors.isEmpty ? [ConfigError(field: "(file)", "is not usable")] : errors)
        }
        return config
    }

    /// Builds each provider entry on its own (a registry of that one entry, as `serve` builds them all), so that
    /// a bad entry does not hide the next one's errors. An unknown provider gets a "did you mean" from the names
    /// the registry's message lists as known.
    static func checkProviders(_ config: BrokerConfig, context: ProviderContext, issues: ConfigIssues) {
        for name in config.providers.keys.sorted() {
            guard let entry = config.providers[name] else { continue }
            var single = config
            single.providers = [name: entry]
            do {
                _ = try ProviderRegistry(config: single, catalog: .builtIn, context: context)
            } catch let error as ConfigError {
                issues.record(suggesting(error, for: name))
            } catch {
                issues.record(ConfigError(field: entry.path, "\(error)"))
            }
        }
    }

    /// `error` with a "did you mean" when it is an unknown provider close to one of those it lists as known.
    static func suggesting(_ error: ConfigError, for name: String) -> ConfigError {
        guard error.message.hasPrefix("unknown provider"), let open = error.message.range(of: "(known: "),
            let close = error.message[open.upperBound...].firstIndex(of: ")")
        else { return error }
        let known = Set(
            error.message[open.upperBound..<close].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        guard let nearest = ConfigIssues.nearest(to: name, among: known) else { return error }
        return ConfigError(field: error.field, "\(error.message) (did you mean \"\(nearest)\"?)")
    }

    /// Placeholder client ids left in an enabled provider, and what each provider's factory warns of in its entry.
    static func placeholderWarnings(_ config: BrokerConfig, catalog: ProviderCatalog = .builtIn) -> [ConfigError] {
        var warnings: [ConfigError] = []
        for name in config.providers.keys.sorted() {
            guard let entry = config.providers[name], (try? entry.bool("enabled", default: true)) == true else {
                continue
            }
            let audiences = (try? entry.strings("audiences", nonEmpty: false)) ?? []
            for audience in audiences where isPlaceholderAudience(audience) {
                warnings.append(
                    ConfigError.warning(
                        field: entry.field("audiences"),
                        "\"\(audience)\" is a placeholder from the shipped providers.json: put your app's client id "
                            + "here, or real sign-ins fail with INVALID_AUDIENCE"))
            }
            let type = (try? entry.optionalString("type")) ?? name
            warnings += catalog.factory(type: type)?.warnings(config: entry) ?? []
        }
        return warnings
    }

    /// A loopback issuer naming another port than the one the broker listens on: its tokens' `iss` and discovery
    /// document would point at a port nothing answers on. The broker keeps the configured issuer (instances
    /// sharing a database must agree on it) and warns.
    public static func issuerWarnings(_ config: BrokerConfig, listenPort: Int?) -> [ConfigError] {
        guard let listenPort, listenPort != 0, let components = URLComponents(string: config.issuer),
            let host = components.host?.lowercased(),
            host == "localhost" || host.hasPrefix("127.") || host == "::1"
                || host == "[::1]"
        else { return [] }
        let issuerPort = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        guard issuerPort != listenPort else { return [] }
        return [
            ConfigError.warning(
                field: "issuer",
                "\(config.issuer) names port \(issuerPort) but the broker listens on \(listenPort): tokens' iss and "
                    + "the discovery document say port \(issuerPort); set issuer to http://\(host):\(listenPort) (or "
                    + "the public URL in front of the broker)")
        ]
    }

    /// The admin bearer token: `BROKER_ADMIN_TOKEN`, else the trimmed contents of `BROKER_ADMIN_TOKEN_FILE`; nil
    /// when neither is set. Shorter than 16 characters, or an unreadable file, is an error.
    public static func adminToken(_ environment: [String: String]) throws -> String? {
        if let token = environment["BROKER_ADMIN_TOKEN"], !token.isEmpty {
            guard token.count >= 16 else {
                throw ConfigError(field: "BROKER_ADMIN_TOKEN", "the token must be at least 16 characters")
            }
            return token
        }
        guard let path = environment["BROKER_ADMIN_TOKEN_FILE"], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "BROKER_ADMIN_TOKEN_FILE", "cannot read \(path)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16 else {
            throw ConfigError(field: "BROKER_ADMIN_TOKEN_FILE", "the token must be at least 16 characters")
        }
        return token
    }

    /// What can be known about the database without opening it: a SQLite file's folder exists, a pool size is in
    /// range. (A PostgreSQL server's address and password are tried by `serve` when it connects.)
    static func databaseErrors(_ location: String, environment: [String: String]) -> [ConfigError] {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            if let text = environment["BROKER_DATABASE_POOL_SIZE"], !text.isEmpty,
                Int(text).map({ (1...100).contains($0) }) != true
            {
                return [ConfigError(field: "BROKER_DATABASE_POOL_SIZE", "must be a whole number from 1 to 100")]
            }
            return []
        }
        guard location != ":memory:" else { return [] }
        let folder = URL(fileURLWithPath: location).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [
                ConfigError(field: "database", "the folder \(folder) does not exist (create it, or name another file)")
            ]
        }
        return []
    }
}
