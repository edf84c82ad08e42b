import BrokerCore
public import BrokerModel
import CBrokerShims
import CCurl
import Foundation

/// The ``HTTPClient`` port over libcurl's multi interface.
///
/// Every request runs on one dedicated transfer thread that multiplexes all of them, so an awaiting caller
/// holds no thread, and connections are reused across requests. Redirects are never followed (a 302 is
/// returned as the response), only `http` and `https` URLs are allowed, and the request carries exactly the
/// caller's headers (libcurl's `Expect: 100-continue` and default form `Content-Type` are switched off).
/// Cancelling the calling task abandons the transfer and throws `CancellationError`.
public final class CurlHTTPClient: HTTPClient {
    /// The transfer thread and its multi handle.
    private let loop: CurlMultiLoop
    /// The largest response body accepted; a larger one fails with `.transport`.
    private let maxResponseBytes: Int

    /// Creates the client and starts its transfer thread.
    /// - Parameters:
    ///   - maxConnections: how many connections the cache keeps for reuse (`CURLMOPT_MAXCONNECTS`). libcurl
    ///     closes a connection when its transfer ends and the cache already holds this many (busy ones count),
    ///     so it should exceed the provider calls in flight at peak: with 200 slow Kakao sign-ins at once, 64
    ///     made most calls open a new connection (a TLS handshake against the real Kakao).
    ///   - maxResponseBytes: the largest response body accepted.
    /// - Throws: ``HTTPClientError`` when libcurl cannot be initialised.
    public init(maxConnections: Int = 256, maxResponseBytes: Int = 8 << 20) throws {
        loop = try CurlMultiLoop(maxConnections: maxConnections)
        self.maxResponseBytes = maxResponseBytes
        loop.startThread()
    }

    deinit {
        loop.requestStop()
    }

    /// Sends `request` and returns the response, or throws ``HTTPClientError`` (`.timeout` once
    /// `request.timeout` has passed, `.connectionFailed` when no connection could be made, `.transport`
    /// otherwise), or `CancellationError` when the calling task is cancelled.
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        try Task.checkCancellation()
        let transfer = try CurlTransfer(request: request, maxResponseBytes: maxResponseBytes)
        let loop = self.loop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                do {
                    try loop.submit(transfer)
                } catch {
                    transfer.fail(error)
                }
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }

    /// Stops the transfer thread: requests still running fail with `.transport`, later ones are refused.
    /// Returns once the thread has finished. Safe to call more than once.
    public func shutdown() async {
        loop.requestStop()
        await loop.waitUntilStopped()
    }
}
