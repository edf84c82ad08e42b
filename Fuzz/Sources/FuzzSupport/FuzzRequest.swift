public import BrokerModel
import Foundation

/// A fuzz input read like an HTTP request on the wire, loosely: `METHOD SP TARGET LF (NAME ":" VALUE LF)* LF BODY`,
/// the target split at `?` into a path and `&`-separated `name=value` query arguments (percent-decoded where they
/// decode). Shared by the targets that fuzz an app's request path (`http`, `firebase`).
public func parse(_ bytes: [UInt8]) -> HTTPRequest {
    let newline = UInt8(ascii: "\n")
    var lines: [String] = []
    var index = bytes.startIndex
    var body: [UInt8] = []
    while index < bytes.endIndex {
        let end = bytes[index...].firstIndex(of: newline) ?? bytes.endIndex
        let line = String(decoding: bytes[index..<end], as: UTF8.self)
        index = min(end + 1, bytes.endIndex)
        if line.isEmpty && !lines.isEmpty {
            body = Array(bytes[index...])
            break
        }
        lines.append(line)
    }
    let requestLine = lines.first?.split(separator: " ", maxSplits: 1).map(String.init) ?? []
    let method = requestLine.first ?? "GET"
    let target = requestLine.count > 1 ? requestLine[1] : "/"
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let (path, query) = split(target)
    return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
}

func split(_ target: String) -> (String, [String: String]) {
    guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
    var query: [String: String] = [:]
    for pair in target[target.index(after: mark)...].split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
        }
        query[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return (String(target[..<mark]), query)
}
