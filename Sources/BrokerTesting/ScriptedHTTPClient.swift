import BrokerCore
public import BrokerModel
import Foundation

/// An ``HTTPClient`` that answers from a closure and records each request; for unit tests of provider code.
public final class ScriptedHTTPClient: HTTPClient, @unchecked Sendable {
    /// Produces the answer to a request (or throws ``HTTPClientError``).
    public typealias Responder = @Sendable (HTTPClientRequest) async throws -> HTTPClientResponse

    // Guarded by `lock`.
    private var responder: Responder
    private var log: [HTTPClientRequest] = []
    private let lock = NSLock()

    /// Creates a client answering with `responder`.
    public init(_ responder: @escaping Responder) { self.responder = responder }

    /// Replaces the responder.
    public func respond(with responder: @escaping Responder) { lock.withLock { self.responder = responder } }

    /// The requests sent so far.
    public var requests: [HTTPClientRequest] { lock.withLock { log } }

    /// Records and answers `request`.
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let responder = lock.withLock {
            log.append(request)
            return self.responder
        }
        return try await responder(request)
    }

    /// A JSON response.
    public static func json(_ status: Int, _ value: JSONValue, headers: [String: String] = [:]) -> HTTPClientResponse {
        HTTPClientResponse(status: status, headers: headers, body: value.serialized())
    }
}
