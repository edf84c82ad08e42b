import BrokerCore
public import BrokerModel
/// One request to the Firebase listener as its handlers see it, after the listener's checks passed.
public struct FirebaseCall: Sendable {
    /// The request.
    public let request: HTTPRequest
    /// Its id, logger and path parameters.
    public let context: RequestContext
    /// Whether it carries `Authorization: Bearer owner` (admin, as on Firebase's emulator).
    public let isAdmin: Bool
    /// The API key it carries (`key=` or `X-Goog-Api-Key`), if any; accepted whatever its value.
    public let apiKey: String?
    /// The decoded body (JSON or form-encoded).
    public let body: FirebaseBody

    /// Creates a call.
    public init(request: HTTPRequest, context: RequestContext, isAdmin: Bool, apiKey: String?, body: FirebaseBody) {
        self.request = request
        self.context = context
        self.isAdmin = isAdmin
        self.apiKey = apiKey
        self.body = body
    }

    /// The request id.
    public var requestID: String { context.requestID }
}

/// A Firebase route's handler.
public typealias FirebaseHandler = @Sendable (FirebaseCall) async throws -> HTTPResponse
