import BrokerCore
import CLibPQ
import Foundation

/// A `postgres://` URL split into what libpq reads and what the broker reads, with a form safe to show.
///
/// libpq understands the URL itself (hosts, port, database, `sslmode`, `options`, ...) but refuses query
/// parameters it does not know, so the broker's own (`poolSize`) are taken out first. The password, whether in
/// the user-info or a `password=` parameter, never appears in ``redacted`` nor in any message ``scrub(_:)``
/// has seen.
struct PostgresSettings: Sendable {
    /// The query parameters the broker reads and libpq must not see.
    static let brokerParameters: Set<String> = ["poolSize"]
    /// The largest pool the broker opens.
    static let maximumPoolSize = 100

    /// The connection string handed to libpq.
    let conninfo: String
    /// The `poolSize` query parameter, if the URL has one.
    let poolSize: Int?
    /// `scheme://user@hosts/database`: no password, no query. For messages and logs.
    let redacted: String
    /// Strings never to show: the password, as written and percent-decoded.
    private let secrets: [String]

    /// Splits `url`. A URL libpq would refuse, or a bad `poolSize`, throws `SQLError(.other)` naming the
    /// problem but never the password.
    init(url: String) throws {
        guard let schemeEnd = url.range(of: "://") else {
            // A key=value connection string: passed through; its password= value is kept out of messages.
            conninfo = url
            poolSize = nil
            redacted = "PostgreSQL (connection string)"
            secrets = Self.keywordPasswords(in: url)
            try Self.validate(conninfo, redacted: redacted, secrets: secrets)
            return
        }
        let scheme = String(url[..<schemeEnd.lowerBound])
        let rest = url[schemeEnd.upperBound...]
        let main = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let query = rest.contains("?") ? rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[1] : ""
        let authorityEnd = main.firstIndex(of: "/") ?? main.endIndex
        let authority = main[..<authorityEnd]
        let path = main[authorityEnd...]

        var secrets: [String] = []
        var user: Substring?
        var hosts = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hosts = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                secrets.append(String(userInfo[userInfo.index(after: colon)...]))
            } else {
                user = userInfo
            }
        }

        var kept: [Substring] = []
        var poolSize: Int?
        for item in query.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if key == "password" { secrets.append(value) }
            if key == "poolSize" {
                guard let size = Int(value), (1...Self.maximumPoolSize).contains(size) else {
                    throw SQLError(.other, "database URL: poolSize must be a whole number from 1 to \(Self.maximumPoolSize)")
                }
                poolSize = size
            } else {
                kept.append(item)
            }
        }
        secrets += secrets.compactMap { $0.removingPercentEncoding }
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        self.poolSize = poolSize
        redacted = "\(scheme)://\(user.map { "\($0)@" } ?? "")\(hosts)\(path)"
        conninfo = "\(scheme)://\(main)" + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        try Self.validate(conninfo, redacted: redacted, secrets: self.secrets)
    }

    /// `text` with every secret replaced by `***`.
    func scrub(_ text: String) -> String {
        Self.scrub(text, secrets: secrets)
    }

    private static func scrub(_ text: String, secrets: [String]) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// Lets libpq parse the string without connecting, so a malformed URL is refused at start.
    private static func validate(_ conninfo: String, redacted: String, secrets: [String]) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            let detail = message.map { trimmed(String(cString: $0)) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw SQLError(.other, "invalid database URL \(redacted): \(scrub(detail, secrets: secrets))")
        }
        PQconninfoFree(options)
    }

    /// The values of `password=` in a key=value connection string.
    private static func keywordPasswords(in conninfo: String) -> [String] {
        conninfo.split(whereSeparator: \.isWhitespace).compactMap { word in
            guard word.hasPrefix("password=") else { return nil }
            let value = word.dropFirst("password=".count).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            return value.isEmpty ? nil : value
        }
    }
}
