public import BrokerCore
public import BrokerModel
/// How a listener answers web pages of other origins: its CORS preflights, and the headers its responses carry.
/// The main listener's is ``CORSPolicy`` (`cors.allowedOrigins`); a surface with rules of its own (the compatibility
/// listener) gives them as ``Surface/crossOrigin``.
public protocol CrossOriginPolicy: Sendable {
    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`), or nil: the request goes on
    /// as any other would.
    func preflightResponse(to request: HTTPRequest) -> HTTPResponse?
    /// Adds the CORS headers the response to `request` carries.
    func addHeaders(to response: inout HTTPResponse, for request: HTTPRequest)
}

extension CORSPolicy: CrossOriginPolicy {}
