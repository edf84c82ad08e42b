import Foundation

/// Typed access to one JSON object of the config file; every error names the field's dotted path.
public struct ConfigReader: Sendable {
    /// The dotted path of this object (empty at the top).
    public let path: String
    /// The object's members.
    public let members: [String: JSONValue]
    /// Where unknown fields are collected instead of thrown (by `check-config` and `serve`, to report them all).
    public let issues: ConfigIssues?

    /// Wraps `value`, which must be an object; with `issues`, unknown fields are recorded there, not thrown.
    public init(path: String, value: JSONValue, issues: ConfigIssues? = nil) throws {
        guard let members = value.objectValue else { throw ConfigError(field: path.isEmpty ? "(top)" : path, "must be an object") }
        self.path = path
        self.members = members
        self.issues = issues
    }

    /// The dotted path of member `key`.
    public func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Refuses members not in `keys` (catches misspellings such as `audience`), suggesting the nearest known one.
    /// With ``issues``, records every unknown member there and returns.
    public func allowOnly(_ keys: Set<String>) throws {
        for unknown in members.keys.sorted() where !keys.contains(unknown) {
            let suggestion = ConfigIssues.nearest(to: unknown, among: keys).map { " (did you mean \"\($0)\"?)" } ?? ""
            let error = ConfigError(field: field(unknown), "unknown field\(suggestion)")
            guard let issues else { throw error }
            issues.record(error)
        }
    }

    /// A required non-empty string.
    public func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw ConfigError(field: field(key), "is required") }
        return value
    }

    /// An optional string: absent or null is nil; an empty string is refused.
    public func optionalString(_ key: String) throws -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let text)? where !text.isEmpty: return text
        default: throw ConfigError(field: field(key), "must be a non-empty string")
        }
    }

    /// A list of non-empty strings; `nonEmpty` refuses an empty or missing list.
    public func strings(_ key: String, nonEmpty: Bool) throws -> [String] {
        guard let value = members[key], value != .null else {
            if nonEmpty { throw ConfigError(field: field(key), "is required and must not be empty") }
            return []
        }
        guard let items = value.arrayValue else { throw ConfigError(field: field(key), "must be a list of strings") }
        let texts = items.compactMap(\.stringValue).filter { !$0.isEmpty }
        guard texts.count == items.count else { throw ConfigError(field: field(key), "must be a list of non-empty strings") }
        if nonEmpty && texts.isEmpty { throw ConfigError(field: field(key), "must not be empty") }
        return texts
    }

    /// A boolean, `defaultValue` when absent.
    public func bool(_ key: String, default defaultValue: Bool) throws -> Bool {
        guard let value = members[key], value != .null else { return defaultValue }
        guard let flag = value.boolValue else { throw ConfigError(field: field(key), "must be true or false") }
        return flag
    }

    /// An integer within `range`, `defaultValue` when absent.
    public func int(_ key: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let value = members[key], value != .null else { return defaultValue }
        guard let number = value.intValue, range.contains(Int(number)) else {
            throw ConfigError(field: field(key), "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A required absolute URL, `https://` unless `allowInsecure` (then `http://` too); no query or fragment.
    public func url(_ key: String, allowInsecure: Bool) throws -> String {
        let text = try string(key)
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil
        else { throw ConfigError(field: field(key), "must be an absolute URL") }
        guard scheme == "https" || (allowInsecure && scheme == "http") else {
            throw ConfigError(
                field: field(key),
                allowInsecure ? "must be an http(s) URL" : "must be an https:// URL (or set allowInsecureProviderUrls)")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// The member object `key`, or nil when absent or null.
    public func child(_ key: String) throws -> ConfigReader? {
        guard let value = members[key], value != .null else { return nil }
        return try ConfigReader(path: field(key), value: value, issues: issues)
    }
}
