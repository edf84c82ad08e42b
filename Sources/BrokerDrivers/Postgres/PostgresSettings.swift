import BrokerCore
import BrokerModel
import BrokerStorage
import CLibPQ
import Foundation

/// A `postgres://` URL split into what libpq reads and what the broker reads, with a form safe to show.
///
/// libpq understands the URL itself (hosts, port, database, `sslmode`, `target_session_attrs`, ...) but refuses
/// query parameters it does not know, so the broker's own (`poolSize`, `searchPath`) are taken out first. The
/// password, whether in the user-info or a `password=` parameter, never appears in ``redacted`` nor in any
/// message ``scrub(_:)`` has seen.
struct PostgresSettings: Sendable {
    /// The query parameters the broker reads and libpq must not see.
    static let brokerParameters: Set<String> = ["poolSize", "searchPath", "callTimeout", "preparedStatements"]
    /// How long one database call waits for the server's answer, and a request for a free connection, by default.
    static let defaultCallTimeout: Duration = .seconds(4)
    /// The longest `callTimeout` the URL may ask for, in seconds.
    static let maximumCallTimeoutSeconds = 600
    /// The largest pool the broker opens.
    static let maximumPoolSize = 100

    /// The connection string handed to libpq.
    let conninfo: String
    /// The `poolSize` query parameter, if the URL has one.
    let poolSize: Int?
    /// The `searchPath` query parameter: schema names, each validated and double-quoted (lower-cased first, as
    /// PostgreSQL folds an unquoted name), set with `SET LOCAL` at the start of every transaction rather than
    /// as a startup `options`, which a transaction-pooling PgBouncer refuses and whose effect would not follow
    /// the pooler's server connections anyway.
    let searchPath: [String]
    /// The `callTimeout` query parameter (whole seconds), else ``defaultCallTimeout``: how long one statement,
    /// `BEGIN` or `COMMIT` waits for the server's answer before the connection is dropped and the call fails
    /// `.unavailable`, and how long a request waits for a free connection. Migrations are not bounded.
    let callTimeout: Duration
    /// The `preparedStatements` query parameter (`true` or `false`, default false): whether statements are prepared
    /// once per connection under a name and then only bound and executed. Only for a connection that reaches
    /// PostgreSQL itself: a transaction-pooling pooler hands each transaction to another server connection, where
    /// the name is unknown (or taken).
    let preparedStatements: Bool
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
            self.searchPath = []
            callTimeout = Self.defaultCallTimeout
            preparedStatements = false
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
        var searchPath: [String] = []
        var callTimeout = Self.defaultCallTimeout
        var preparedStatements = false
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
            } else if key == "callTimeout" {
                guard let seconds = Int(value), (1...Self.maximumCallTimeoutSeconds).contains(seconds) else {
                    throw SQLError(
                        .other,
                        "database URL: callTimeout must be a whole number of seconds from 1 to "
                            + "\(Self.maximumCallTimeoutSeconds)")
                }
                callTimeout = .seconds(seconds)
            } else if key == "searchPath" {
                searchPath = try Self.schemas(value)
            } else if key == "preparedStatements" {
                guard value == "true" || value == "false" else {
                    throw SQLError(.other, "database URL: preparedStatements must be true or false")
                }
                preparedStatements = value == "true"
            } else {
                guard Self.libpqParameters.contains(key) else { throw Self.unknownParameter(key) }
                kept.append(item)
            }
        }
        secrets += secrets.compactMap { $0.removingPercentEncoding }
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        self.poolSize = poolSize
        self.searchPath = searchPath
        self.callTimeout = callTimeout
        self.preparedStatements = preparedStatements
        redacted = "\(scheme)://\(user.map { "\($0)@" } ?? "")\(hosts)\(path)"
        conninfo = "\(scheme)://\(main)" + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        try Self.validate(conninfo, redacted: redacted, secrets: self.secrets)
    }

    /// The statement that sets ``searchPath`` for one transaction, or nil when the URL names none.
    var searchPathStatement: String? {
        searchPath.isEmpty ? nil : "SET LOCAL search_path TO " + searchPath.joined(separator: ", ")
    }

    /// The longest schema name PostgreSQL keeps (NAMEDATALEN - 1 bytes), and the most names taken.
    static let maximumSchemaNameLength = 63
    static let maximumSchemas = 8

    /// `value` (percent-decoded, comma-separated) as double-quoted schema names: each is `$user` or a plain
    /// identifier (ASCII letters, digits, `_`, not starting with a digit), lower-cased as PostgreSQL folds it.
    static func schemas(_ value: String) throws -> [String] {
        let refusal = SQLError(
            .other,
            "database URL: searchPath must be up to \(maximumSchemas) comma-separated schema names "
                + "(letters, digits and _, not starting with a digit, at most \(maximumSchemaNameLength) characters)")
        guard let decoded = value.removingPercentEncoding else { throw refusal }
        let names = decoded.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty, names.count <= maximumSchemas else { throw refusal }
        return try names.map { name in
            if name == "$user" { return "\"$user\"" }
            let bytes = Array(name.utf8)
            guard let first = bytes.first, bytes.count <= maximumSchemaNameLength,
                !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                bytes.allSatisfy({ byte in
                    byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                })
            else { throw refusal }
            return "\"" + name.lowercased() + "\""
        }
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
        defer { PQconninfoFree(options) }
        // libpq takes any text as a port and refuses it only when it connects: refused here, with the URL's other
        // mistakes, so that `check-config` refuses it as `serve` does.
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "port", let value = option.pointee.val {
                for port in String(cString: value).split(separator: ",", omittingEmptySubsequences: false)
                where !port.isEmpty && Int(port).map({ (1...65_535).contains($0) }) != true {
                    let shown = scrub(String(port), secrets: secrets)
                    throw SQLError(.other, "database URL: the port \"\(shown)\" is not a number from 1 to 65535")
                }
            }
            option += 1
        }
    }

    /// The query parameters libpq reads (its connection keywords, and `ssl`, which it takes as `sslmode=require`).
    static let libpqParameters: Set<String> = {
        var names: Set<String> = ["ssl"]
        guard let defaults = PQconndefaults() else { return names }
        defer { PQconninfoFree(defaults) }
        var option = defaults
        while let keyword = option.pointee.keyword {
            names.insert(String(cString: keyword))
            option += 1
        }
        return names
    }()

    /// The refusal of a query parameter neither the broker nor libpq reads, naming the closest one that is (a case
    /// slip such as `poolsize`, a typo such as `sslmod`).
    static func unknownParameter(_ key: String) -> SQLError {
        let known = brokerParameters.union(libpqParameters)
        let hint = ConfigIssues.nearest(to: key, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
        return SQLError(.other, "database URL: unknown parameter \"\(key)\"\(hint)")
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
