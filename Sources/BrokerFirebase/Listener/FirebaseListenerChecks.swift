import BrokerCore
import BrokerHTTP
public import BrokerModel
import Foundation

/// What every request to the Firebase listener passes before its handler runs, in this order, and nothing is
/// done (counted or stored) for one that fails: the `Host` check (no DNS rebinding from a browser), the `Origin`
/// check (``FirebaseOriginPolicy``: no other site's page), the body's media type (`application/json`, except on
/// `securetoken` and for an empty body: a page cannot send JSON without a preflight), the caller (an API key or
/// `Bearer owner`; `Bearer owner` for admin routes), the project of a `projects/{project}` path, and the body.
public struct FirebaseListenerChecks: Sendable {
    /// The most bytes of an API key (any value is accepted, as Firebase's emulator does; this only bounds it).
    public static let maximumAPIKeyBytes = 256

    let listener: FirebaseSurface.Listener
    let projectID: String
    let origins: FirebaseOriginPolicy

    /// The checks of `surface`'s listener.
    public init(surface: FirebaseSurface) {
        listener = surface.listener
        projectID = surface.projectID
        origins = FirebaseOriginPolicy(surface: surface)
    }

    /// The call, or the error that refuses it.
    public func admit(_ request: HTTPRequest, _ context: RequestContext, access: FirebaseAccess) throws -> FirebaseCall {
        try checkHost(request)
        try origins.check(request)
        try Self.checkMediaType(request)
        let isAdmin = try Self.isOwner(request.headers["authorization"], access: access)
        let key = request.query["key"] ?? request.headers["x-goog-api-key"]
        let apiKey = key.flatMap { $0.isEmpty ? nil : $0 }
        if let apiKey, apiKey.utf8.count > Self.maximumAPIKeyBytes { throw FirebaseError.missingAPIKey }
        switch access {
        case .client where !isAdmin && apiKey == nil: throw FirebaseError.missingAPIKey
        case .admin where !isAdmin: throw FirebaseError.unauthenticated
        default: break
        }
        if let project = context.parameters["project"], project != projectID {
            throw FirebaseError(
                "PERMISSION_DENIED", "projects/\(NativeBody.printable(project)) is not this broker's project.",
                status: 403, reason: "forbidden", statusName: "PERMISSION_DENIED")
        }
        let body = try FirebaseBody(request)
        // Tenants are not served: a call naming one is refused, never answered from the default user pool.
        let queryTenant = request.query["tenantId"].map(JSONValue.string)
        if Self.namesTenant(body.members["tenantId"]) || Self.namesTenant(queryTenant) {
            throw FirebaseError.tenantsNotServed
        }
        return FirebaseCall(request: request, context: context, isAdmin: isAdmin, apiKey: apiKey, body: body)
    }

    /// Whether a `tenantId` value names a tenant (anything but absent, null or empty).
    static func namesTenant(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .some(.null): false
        case .some(.string(let text)): !text.isEmpty
        default: true
        }
    }

    /// Refuses a request whose `Host` is not the listener's `host:port`, `localhost[:port]`, `127.0.0.1[:port]`
    /// or `[::1][:port]`.
    public func checkHost(_ request: HTTPRequest) throws {
        guard let host = request.headers["host"], Self.allows(host: host, listener: listener) else {
            throw FirebaseError.hostRefused
        }
    }

    /// Refuses a request with a body whose `Content-Type` is missing or not `application/json` (parameters such as
    /// `charset` allowed, case-insensitively), except on `securetoken` (the JS SDK posts a form there). A request
    /// without a body (no bytes: a `GET`, a `POST` with `Content-Length: 0`) is exempt: it reads as `{}`.
    public static func checkMediaType(_ request: HTTPRequest) throws {
        guard !request.body.isEmpty, request.path != FirebaseEndpoints.secureTokenPath else { return }
        guard isJSON(contentType: request.headers["content-type"]) else { throw FirebaseError.unsupportedMediaType }
    }

    /// Whether a `Content-Type` value's media type is `application/json`.
    static func isJSON(contentType value: String?) -> Bool {
        guard let value, value.utf8.count <= 256 else { return false }
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// Whether a `Host` header value names this listener.
    public static func allows(host value: String, listener: FirebaseSurface.Listener) -> Bool {
        let text = value.lowercased()
        guard !text.isEmpty, text.utf8.count <= 300 else { return false }
        var name: Substring
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return false }
            name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            name = Substring(text)
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(port), (1...65_535).contains(number)
            else { return false }
        }
        if name == "localhost" || name == "127.0.0.1" || name == "::1" { return true }
        let own = listener.host.lowercased()
        guard name == own || (own.contains(":") && name == own.trimmingCharacters(in: ["[", "]"])) else { return false }
        guard let expected = listener.port else { return true }
        return port.flatMap { Int($0) } == expected
    }

    /// Whether `Authorization` is `Bearer owner` (the word case-insensitively, as the emulator reads it). Another
    /// bearer credential is refused on admin routes (401) and ignored on client ones (they go by the API key).
    static func isOwner(_ authorization: String?, access: FirebaseAccess) throws -> Bool {
        guard let authorization, !authorization.isEmpty else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        let isBearer = parts.count == 2 && parts[0].lowercased() == "bearer"
        if isBearer && parts[1].trimmingCharacters(in: .whitespaces).lowercased() == "owner" { return true }
        if access == .admin { throw FirebaseError.invalidCredentials }
        return false
    }
}
