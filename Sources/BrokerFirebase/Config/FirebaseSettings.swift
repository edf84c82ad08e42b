public import BrokerCore
public import BrokerModel
public import Foundation

/// The `firebase` section (the service account, Firebase's admin API, custom tokens) and the `firebaseCompat`
/// section (the listener, ``FirebaseCompatSettings``) of `providers.json`: the sections this module reads
/// (``ConfigSection``). The service account file defaults to ``FirebaseEndpoints/credentialsVariable``.
public struct FirebaseSettings: ConfigSection, Equatable {
    /// The names read.
    public static let names: Set<String> = ["firebase", "firebaseCompat"]

    /// The Firebase service-account JSON file, from the config or ``FirebaseEndpoints/credentialsVariable``.
    public var serviceAccountFile: String?
    /// `firebase.apiBaseUrl`: Firebase Auth's admin API, where a uid's sessions are revoked.
    public var apiBaseURL: String = FirebaseEndpoints.identityToolkitBaseURL
    /// `firebase.customTokenTtlSeconds`: the lifetime of the custom tokens the broker mints (at most an hour).
    public var customTokenTTL: TimeInterval = 3600
    /// `firebaseCompat`: the Firebase-compatible listener (contract section 11; off by default).
    public var compat: FirebaseCompatSettings = .defaults

    /// No service account, Google's API, hour-long custom tokens, no listener.
    public static let defaults = FirebaseSettings()

    init() {}

    /// Reads both sections of `top` (with `issues`, a bad field is recorded and its default kept).
    public init(
        reading top: ConfigReader, config: BrokerConfig, environment: [String: String], issues: ConfigIssues?
    ) throws {
        func read<T>(_ fallback: T, _ body: () throws -> T) throws -> T {
            guard let issues else { return try body() }
            return try issues.attempt(fallback, body)
        }
        let firebase = try read(nil) { try top.child("firebase") }
        try firebase?.allowOnly(["serviceAccountFile", "apiBaseUrl", "customTokenTtlSeconds"])
        serviceAccountFile =
            try read(nil) { try firebase?.optionalString("serviceAccountFile") }
            ?? environment[FirebaseEndpoints.credentialsVariable].flatMap { $0.isEmpty ? nil : $0 }
        let insecure = config.allowInsecureProviderURLs
        apiBaseURL = try read(FirebaseEndpoints.identityToolkitBaseURL) {
            guard let firebase, firebase.members["apiBaseUrl"] != nil else {
                return FirebaseEndpoints.identityToolkitBaseURL
            }
            return try firebase.url("apiBaseUrl", allowInsecure: insecure)
        }
        customTokenTTL = TimeInterval(
            try read(3600) { try firebase?.int("customTokenTtlSeconds", default: 3600, range: 60...3600) ?? 3600 })
        compat = try read(.defaults) { try FirebaseCompatSettings(config: try top.child("firebaseCompat")) }
    }

    /// The listener's warnings, a service account file that cannot be read (recorded in `issues`), one of another
    /// project than `projectId`, and guests without custom tokens.
    public func warnings(config: BrokerConfig, recording issues: ConfigIssues) -> [ConfigError] {
        var warnings = compat.warnings
        // Guests without a service account get no custom token, so an app cannot open a session of its backend for
        // their uid (their data keyed by it).
        if config.anonymous.enabled, serviceAccountFile == nil {
            warnings.append(
                ConfigError.warning(
                    field: "anonymous.enabled",
                    "guests get no customToken without firebase.serviceAccountFile: an app cannot open its backend's "
                        + "session for a guest's uid"))
        }
        guard let file = serviceAccountFile else { return warnings }
        do {
            let account = try FirebaseServiceAccount(
                contentsOf: file, allowInsecureURLs: config.allowInsecureProviderURLs)
            if let project = account.projectID, project != config.projectID {
                warnings.append(
                    ConfigError.warning(
                        field: "projectId",
                        "is \"\(config.projectID)\" but the service account belongs to project \"\(project)\": "
                            + "Firebase refuses custom tokens and apps refuse ID tokens meant for another project"))
            }
        } catch let error as ConfigError {
            issues.record(error)
        } catch {
            issues.record(ConfigError(field: "firebase.serviceAccountFile", "\(error)"))
        }
        return warnings
    }
}

extension BrokerConfig {
    /// The Firebase sections as read (the defaults when this config was parsed without them).
    public var firebase: FirebaseSettings { section(FirebaseSettings.self) ?? .defaults }
    /// The Firebase service-account JSON file (`firebase.serviceAccountFile` or the environment's).
    public var firebaseServiceAccountFile: String? { firebase.serviceAccountFile }
    /// `firebase.apiBaseUrl`.
    public var firebaseAPIBaseURL: String { firebase.apiBaseURL }
    /// `firebase.customTokenTtlSeconds`.
    public var customTokenTTL: TimeInterval { firebase.customTokenTTL }
    /// `firebaseCompat`.
    public var firebaseCompat: FirebaseCompatSettings { firebase.compat }
}
