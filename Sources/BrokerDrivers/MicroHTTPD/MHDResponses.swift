import BrokerCore
import BrokerModel
import CBrokerShims
import CMicroHTTPD

// Turning an `HTTPResponse` into a queued libmicrohttpd response, and the driver's own answers.

/// Queues `response` on `connection`; `closing` adds `Connection: close` (during shutdown, and after a
/// refused body). Answers `.NO`, which makes libmicrohttpd close the connection, when libmicrohttpd
/// refuses the response (an invalid header or status).
func mhdQueue(_ response: HTTPResponse, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
    let created = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    do {
        for (name, value) in response.headers {
            // libmicrohttpd computes the framing itself.
            let lowered = name.lowercased()
            if lowered == "content-length" || lowered == "transfer-encoding" { continue }
            try mhdCheck(MHD_add_response_header(created, name, value), "MHD_add_response_header \(name)")
        }
        if closing {
            try mhdCheck(MHD_add_response_header(created, "Connection", "close"), "MHD_add_response_header Connection")
        }
        guard let status = UInt32(exactly: response.status) else {
            throw MicroHTTPDError(.callFailed, "status \(response.status) out of range")
        }
        try mhdCheck(MHD_queue_response(connection, status, created), "MHD_queue_response \(status)")
        return .YES
    } catch {
        return .NO
    }
}

/// The 413 sent for a body over the limit; the handler never sees the request.
func mhdPayloadTooLarge(_ maxBodyBytes: Int, requestID: String, _ refusals: HTTPServerRefusals? = nil) -> HTTPResponse {
    mhdRefusal(RequestError(.payloadTooLarge, limit: maxBodyBytes), requestID: requestID, refusals) {
        mhdErrorResponse(
            status: 413, code: "PAYLOAD_TOO_LARGE", message: "The request body exceeds \(maxBodyBytes) bytes.",
            requestID: requestID)
    }
}

/// The message of the 400 for a request whose framing is ambiguous.
private let mhdAmbiguousFramingMessage =
    "The request's framing is ambiguous (RFC 9112 section 6.3): conflicting Content-Length or "
    + "Transfer-Encoding, or whitespace before a header's colon."

/// The 400 sent (with `Connection: close`) for a request whose framing is ambiguous; the handler never sees it.
func mhdAmbiguousFraming(requestID: String, _ refusals: HTTPServerRefusals? = nil) -> HTTPResponse {
    mhdRefusal(.invalidRequest(mhdAmbiguousFramingMessage), requestID: requestID, refusals) {
        mhdErrorResponse(
            status: 400, code: "INVALID_REQUEST", message: mhdAmbiguousFramingMessage, requestID: requestID)
    }
}

/// The 503 sent for a request that arrives after shutdown has drained.
func mhdShuttingDown(requestID: String, _ refusals: HTTPServerRefusals? = nil) -> HTTPResponse {
    mhdRefusal(RequestError(.shuttingDown), requestID: requestID, refusals) {
        var response = mhdErrorResponse(
            status: 503, code: "UNAVAILABLE", message: "The server is shutting down.", requestID: requestID)
        response.headers.append((name: "Retry-After", value: "1"))
        return response
    }
}

/// `refusal` as the application answers it (with the request's `X-Request-Id`), or the driver's own answer.
private func mhdRefusal(
    _ refusal: RequestError, requestID: String, _ refusals: HTTPServerRefusals?, own: () -> HTTPResponse
) -> HTTPResponse {
    guard var rendered = refusals?(refusal) else { return own() }
    rendered.headers.append((name: "X-Request-Id", value: mhdRequestID(requestID)))
    return rendered
}

/// The request's id, or a new one when it had none.
private func mhdRequestID(_ requestID: String) -> String {
    requestID.isEmpty ? RequestID.from(header: nil) : requestID
}

/// A response in the contract's error shape, `{"error":{"code":…,"message":…}}`, with its `X-Request-Id`.
private func mhdErrorResponse(status: Int, code: String, message: String, requestID: String) -> HTTPResponse {
    // Both strings are fixed ASCII without quotes or backslashes, so no escaping is needed.
    let json = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
    return HTTPResponse(
        status: status,
        headers: [
            (name: "Content-Type", value: "application/json"),
            (name: "X-Request-Id", value: mhdRequestID(requestID)),
        ],
        body: Array(json.utf8))
}
