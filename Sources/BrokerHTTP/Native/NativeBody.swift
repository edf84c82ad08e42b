import BrokerCore
import BrokerModel
/// The fields of a native JSON body, with one rule for each kind: a required field that is missing or of another
/// type is 400 `INVALID_REQUEST`; an optional one may be absent or null; a credential (a token, a code) must also
/// be non-empty.
package struct NativeBody {
    /// The members.
    let members: [String: JSONValue]

    /// The request's body, which must be a JSON object.
    init(_ request: HTTPRequest) throws {
        guard let object = JSONValue.parse(request.body)?.objectValue else {
            throw APIError.invalidRequest("The body must be a JSON object.")
        }
        members = object
    }

    /// A body of these members (a nested object).
    init(members: [String: JSONValue]) { self.members = members }

    /// Whether the body has `field` (null included).
    func has(_ field: String) -> Bool { members[field] != nil }

    /// A required string (possibly empty: the use case judges its content).
    func string(_ field: String) throws -> String {
        guard let value = members[field]?.stringValue else {
            throw APIError.invalidRequest("\(field) is required and must be a string.")
        }
        return value
    }

    /// A required non-empty string: a credential.
    func credential(_ field: String) throws -> String {
        guard let value = members[field]?.stringValue, !value.isEmpty else {
            throw APIError.invalidRequest("\(field) is required and must be a non-empty string.")
        }
        return value
    }

    /// An optional string (absent or null is nil).
    func optionalString(_ field: String) throws -> String? {
        switch members[field] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw APIError.invalidRequest("\(field) must be a string.")
        }
    }

    /// An optional boolean (absent or null is nil).
    func optionalBool(_ field: String) throws -> Bool? {
        switch members[field] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw APIError.invalidRequest("\(field) must be true or false.")
        }
    }

    /// Refuses members outside `allowed`, naming the first (a misspelt field must not be ignored).
    func allowOnly(_ allowed: Set<String>) throws {
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.invalidRequest("\(NativeBody.printable(unknown)) is not a field of this request.")
        }
    }

    /// A body that must carry no fields: empty, or `{}`.
    static func requireEmpty(_ request: HTTPRequest) throws {
        guard !request.body.isEmpty else { return }
        try NativeBody(request).allowOnly([])
    }

    /// A client's name for an error message: at most 64 printable ASCII characters, the rest elided (a message
    /// must not carry whatever a client put in a field name: a token, control characters, a megabyte).
    package static func printable(_ name: String) -> String {
        let clean = String(name.unicodeScalars.prefix(64).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
        return name.unicodeScalars.count > 64 ? clean + "…" : clean
    }
}
