import BrokerCrypto
public import BrokerModel
import Foundation

/// The `mail` section of the config file (contract section 9), validated at start without connecting to
/// the SMTP server. Without it the email endpoints answer 501 `MAIL_NOT_CONFIGURED`.
public struct MailSettings: Sendable {
    /// `mail.smtpUrl`: `smtp://[user@]host[:port]` or `smtps://…`; never a password (that is
    /// `BROKER_SMTP_PASSWORD`).
    public var smtpURL: String
    /// `mail.from`: `address` or `Name <address>`.
    public var from: String
    /// `mail.appName`, default the `projectId`: the name the mails give the app.
    public var appName: String
    /// `mail.allowedContinueUrls`: each an exact origin (scheme, host, port; custom app schemes allowed)
    /// plus a path prefix.
    public var allowedContinueURLs: [String]
    /// The templates, with the overrides of `mail.templatesDir`.
    public var templates: MailTemplates
    /// `mail.defaultLanguage` (`en`, `ko` or `ja`; default `en`): a mail's language when the request that triggered
    /// it names none the broker has (contract section 9).
    public var defaultLanguage: String
    /// `BROKER_SMTP_PASSWORD`, if set.
    public var smtpPassword: String?
    /// `mail.caFile`: a PEM file of CA certificates that the SMTP server's certificate must chain to, instead
    /// of the system's trust store (a private CA, a self-signed relay). Verification is never turned off.
    public var caFile: String?

    /// Parses the section; `projectID` is `appName`'s default, `environment` supplies `BROKER_SMTP_PASSWORD`.
    public init(reading section: ConfigReader, projectID: String, environment: [String: String]) throws {
        try section.allowOnly([
            "smtpUrl", "from", "appName", "allowedContinueUrls", "templatesDir", "caFile", "defaultLanguage",
        ])
        smtpURL = try section.string("smtpUrl")
        guard let components = URLComponents(string: smtpURL), let scheme = components.scheme?.lowercased(),
            scheme == "smtp" || scheme == "smtps", let host = components.host, !host.isEmpty,
            components.query == nil, components.fragment == nil
        else { throw ConfigError(field: "mail.smtpUrl", "must be an smtp:// or smtps:// URL with a host") }
        guard components.password == nil else {
            throw ConfigError(field: "mail.smtpUrl", "must not hold a password: set BROKER_SMTP_PASSWORD")
        }
        from = try section.string("from")
        guard MailMessage.isValidAddress(MailMessage.address(in: from)), !from.contains("\r"), !from.contains("\n") else {
            throw ConfigError(field: "mail.from", "must be an email address, optionally as Name <address>")
        }
        appName = try section.optionalString("appName") ?? projectID
        guard !appName.contains("\r"), !appName.contains("\n"), appName.count <= 100 else {
            throw ConfigError(field: "mail.appName", "must be one line of at most 100 characters")
        }
        allowedContinueURLs = try section.strings("allowedContinueUrls", nonEmpty: false)
        for (index, entry) in allowedContinueURLs.enumerated() where Self.continuePrefix(entry) == nil {
            throw ConfigError(
                field: "mail.allowedContinueUrls[\(index)]", "must be an absolute URL with a host (scheme://host[:port]/path)")
        }
        templates = try MailTemplates(directory: try section.optionalString("templatesDir"))
        defaultLanguage = try section.optionalString("defaultLanguage") ?? MailTemplates.languages[0]
        guard MailTemplates.languages.contains(defaultLanguage) else {
            throw ConfigError(
                field: "mail.defaultLanguage", "must be one of \(MailTemplates.languages.joined(separator: ", "))")
        }
        smtpPassword = environment["BROKER_SMTP_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        caFile = try section.optionalString("caFile")
        if let caFile { try Self.checkCAFile(caFile) }
    }

    /// Whether the connection must be encrypted: credentials are sent (a user name in `mail.smtpUrl` or
    /// `BROKER_SMTP_PASSWORD` set), so a `smtp://` server that does not offer STARTTLS is refused rather than
    /// sent the password in clear. Without credentials STARTTLS is used when offered, plain SMTP otherwise
    /// (a local relay). `smtps://` is always encrypted.
    public var requiresTLS: Bool {
        smtpPassword != nil || !(URLComponents(string: smtpURL)?.user ?? "").isEmpty
    }

    /// Refuses a `mail.caFile` that cannot be read or holds anything but PEM certificates. Checked at start
    /// and in `check-config`, without connecting to the server.
    static func checkCAFile(_ path: String) throws {
        guard !path.isEmpty else { throw ConfigError(field: "mail.caFile", "must be a path to a PEM file of CA certificates") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "mail.caFile", "cannot read \(path)")
        }
        do {
            _ = try PEMCertificateBundle(pem: Array(data))
        } catch let error as CryptoError {
            throw ConfigError(field: "mail.caFile", "\(path): \(error.message)")
        }
    }

    /// Whether `url` is allowed as a `continueUrl`: same scheme, host and port as an allowed entry and a path
    /// under its path (at a segment boundary), no user info.
    public func allowsContinueURL(_ url: String) -> Bool {
        guard url.utf8.count <= 2048, let candidate = Self.continuePrefix(url) else { return false }
        return allowedContinueURLs.contains { entry in
            guard let allowed = Self.continuePrefix(entry), allowed.origin == candidate.origin else { return false }
            if candidate.path == allowed.path || allowed.path.hasSuffix("/") && candidate.path.hasPrefix(allowed.path) {
                return true
            }
            return candidate.path.hasPrefix(allowed.path + "/")
        }
    }

    /// (origin, path) of an absolute URL with a host and no user info; nil otherwise.
    package static func continuePrefix(_ text: String) -> (origin: String, path: String)? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        let port = components.port.map { ":\($0)" } ?? ""
        return ("\(scheme)://\(host)\(port)", components.path.isEmpty ? "/" : components.path)
    }
}
