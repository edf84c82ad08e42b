import Foundation

extension HTTPRequest {
    /// The fields of the `application/x-www-form-urlencoded` body (the first of repeated names; at most 64 of a
    /// body of at most 16 KiB); a pair that is not valid percent-encoding is skipped. Shared by the surfaces and
    /// the providers' webhook routes.
    public var formFields: [String: String] {
        guard body.count <= 16 * 1024 else { return [:] }
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&").prefix(64) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = parts.first.flatMap(decode), fields[name] == nil else { continue }
            guard let value = parts.count == 2 ? decode(parts[1]) : "" else { continue }
            fields[name] = value
        }
        return fields
    }
}

extension HTTPRequest {
    /// The value of cookie `name` in the `Cookie` header, nil when it has none.
    public func cookie(_ name: String) -> String? {
        guard let header = headers["cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == name { return parts[1] }
        }
        return nil
    }
}
