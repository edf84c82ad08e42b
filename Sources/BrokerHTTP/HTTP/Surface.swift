import BrokerCore
public import BrokerModel
/// An API the broker serves (native `/v1`, admin, operations, the compatibility listener): it mounts its own
/// routes and renders errors in its own dialect. Surfaces only translate: the use cases live below them.
public protocol Surface: Sendable {
    /// Adds the surface's routes.
    func mount(on router: inout Router)
    /// The response for an error a route of this surface threw.
    func render(_ error: any Error) -> RenderedError
    /// The listener's own cross-origin rules, when the surface serves a listener of its own; nil (the default):
    /// the broker's ``CORSPolicy``.
    var crossOrigin: (any CrossOriginPolicy)? { get }
}

extension Surface {
    /// None: the broker's ``CORSPolicy``.
    public var crossOrigin: (any CrossOriginPolicy)? { nil }
}

/// An error as a surface answers it.
public struct RenderedError: Sendable {
    /// The response.
    public var response: HTTPResponse
    /// The internal cause, for the request's log line only (never sent), when it is worth logging.
    public var cause: String?

    /// Creates a rendered error.
    public init(response: HTTPResponse, cause: String?) {
        self.response = response
        self.cause = cause
    }
}

/// Renders a route's errors.
public typealias ErrorRenderer = @Sendable (any Error) -> RenderedError
