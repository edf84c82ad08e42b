import BrokerCore
import BrokerHTTP
public import BrokerModel
/// The fields of a Firebase request body. As Identity Toolkit does, unknown fields are ignored (SDKs send
/// fields the broker has no use for, such as `clientType` or `tenantId`-less `returnSecureToken`); the types of
/// the fields a route reads are checked, and every string and list is bounded.
///
/// A body is JSON, or (for `securetoken`, as the JS SDK sends it) `application/x-www-form-urlencoded`, whose
/// fields are all strings; an empty body is an empty object (the admin SDKs' bodiless calls).
public struct FirebaseBody: Sendable {
    /// The most bytes of one string field (an ID token, `postBody`): far above any real one.
    public static let maximumStringBytes = 16 * 1024
    /// The most items of one list field (`localIds`, `deleteAttribute`).
    public static let maximumListCount = 1000

    /// The members.
    public let members: [String: JSONValue]

    /// The request's body: a JSON object, a form-encoded body, or nothing.
    public init(_ request: HTTPRequest) throws {
        if request.body.isEmpty {
            members = [:]
            return
        }
        let type = request.headers["content-type"]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            members = request.formFields.mapValues(JSONValue.string)
            return
        }
        guard let object = JSONValue.parse(request.body)?.objectValue else { throw FirebaseError.invalidJSON }
        members = object
    }

    /// A body of these members (a nested object, or a test's).
    public init(members: [String: JSONValue]) { self.members = members }

    /// Whether the body has `field` with a value other than null.
    public func has(_ field: String) -> Bool {
        guard let value = members[field] else { return false }
        return value != .null
    }

    /// Identity Toolkit's wording for a field of the wrong type.
    static func wrongType(_ field: String, _ type: String) -> FirebaseError {
        .invalidArgument("Invalid value at '\(NativeBody.printable(field))' (\(type))")
    }

    /// An optional string (absent or null is nil); longer than ``maximumStringBytes`` is refused.
    public func optionalString(_ field: String) throws -> String? {
        switch members[field] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard text.utf8.count <= FirebaseBody.maximumStringBytes else {
                throw FirebaseError.invalidArgument("\(NativeBody.printable(field)) is too long")
            }
            return text
        default: throw FirebaseBody.wrongType(field, "TYPE_STRING")
        }
    }

    /// A required non-empty string; absent, null or empty throws Firebase's `missing` code (`MISSING_EMAIL`).
    public func string(_ field: String, missing: String) throws -> String {
        guard let text = try optionalString(field), !text.isEmpty else { throw FirebaseError(missing) }
        return text
    }

    /// An optional boolean (absent or null is nil); a form body's `"true"`/`"false"` count.
    public func optionalBool(_ field: String) throws -> Bool? {
        switch members[field] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw FirebaseBody.wrongType(field, "TYPE_BOOL")
        }
    }

    /// An optional boolean, `false` when absent.
    public func flag(_ field: String) throws -> Bool { try optionalBool(field) ?? false }

    /// An optional whole number within `range` (absent or null is nil). Identity Toolkit writes 64-bit numbers as JSON
    /// strings (`"validSince": "1700000000"`), so a string of digits counts too.
    public func optionalInt(_ field: String, range: ClosedRange<Int64>) throws -> Int64? {
        let number: Int64?
        switch members[field] {
        case nil, .null?: return nil
        case .string(let text)?: number = text.utf8.count <= 20 ? Int64(text) : nil
        case let value?: number = value.intValue
        }
        guard let number else { throw FirebaseBody.wrongType(field, "TYPE_INT64") }
        guard range.contains(number) else {
            throw FirebaseError.invalidArgument("\(NativeBody.printable(field)) is out of range")
        }
        return number
    }

    /// An optional list of strings (absent or null is empty), at most ``maximumListCount`` items, each bounded.
    public func strings(_ field: String) throws -> [String] {
        try list(field, type: "TYPE_STRING") { item in
            guard let text = item.stringValue, text.utf8.count <= FirebaseBody.maximumStringBytes else { return nil }
            return text
        }
    }

    /// An optional nested object (absent or null is nil).
    public func object(_ field: String) throws -> FirebaseBody? {
        switch members[field] {
        case nil, .null?: return nil
        case .object(let members)?: return FirebaseBody(members: members)
        default: throw FirebaseBody.wrongType(field, "TYPE_MESSAGE")
        }
    }

    /// An optional list of objects (absent or null is empty), at most ``maximumListCount`` items.
    public func objects(_ field: String) throws -> [FirebaseBody] {
        try list(field, type: "TYPE_MESSAGE") { item in item.objectValue.map(FirebaseBody.init(members:)) }
    }

    /// An optional list (absent or null is empty) of at most ``maximumListCount`` items, each read by `item`
    /// (nil: not of the list's `type`, Firebase's name for it in the error).
    private func list<Item>(_ field: String, type: String, _ item: (JSONValue) -> Item?) throws -> [Item] {
        switch members[field] {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= FirebaseBody.maximumListCount else {
                throw FirebaseError.invalidArgument("\(NativeBody.printable(field)) has too many items")
            }
            return try items.map { value in
                guard let read = item(value) else { throw FirebaseBody.wrongType(field, type) }
                return read
            }
        default: throw FirebaseBody.wrongType(field, type)
        }
    }
}
