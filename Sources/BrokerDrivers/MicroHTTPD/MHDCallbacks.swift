import BrokerCore
import BrokerModel
import CBrokerShims
import CMicroHTTPD
import Foundation

// libmicrohttpd's callbacks. They run on libmicrohttpd's polling thread, so they are plain nonisolated
// functions (never main-actor isolated), passed to C as `@convention(c)` function pointers.

/// `MHD_AccessHandlerCallback`: called once when the headers are in, once per chunk of upload, once when the
/// upload is complete, and once more after the connection is resumed with the handler's response.
func mhdAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let dispatcher = Unmanaged<MHDDispatcher>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = requestContext.pointee else {
        // First call: the headers are complete, no body has been read.
        let context = MHDRequestContext(connection: connection, tracked: mhdTrackedConnection(connection))
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        let fields = mhdFields(of: connection, kind: .HEADER_KIND)
        context.headerFields = fields
        let requestIDField = fields.last { $0.name.equalsIgnoringASCIICase("x-request-id") }
        context.requestID = RequestID.from(header: requestIDField?.value)
        if mhdFramingProblem(fields) != nil {
            // Ambiguous framing (RFC 9112 section 6.3): answer 400 and close, before any body byte is read,
            // so whatever follows is never read as another request.
            context.phase = .answered
            context.tracked.map(dispatcher.connections.requestArrived(on:))
            let refused = mhdAmbiguousFraming(requestID: context.requestID, dispatcher.refusals)
            return mhdQueue(refused, on: connection, closing: true)
        }
        if let declared = mhdDeclaredContentLength(connection) {
            if declared > dispatcher.maxBodyBytes {
                // Refuse before reading the body; libmicrohttpd closes the connection after this answer.
                context.phase = .answered
                context.tracked.map(dispatcher.connections.requestArrived(on:))
                let refused = mhdPayloadTooLarge(
                    dispatcher.maxBodyBytes, requestID: context.requestID, dispatcher.refusals)
                return mhdQueue(refused, on: connection, closing: true)
            }
            context.body.reserveCapacity(declared)
        }
        return .YES
    }
    let context = Unmanaged<MHDRequestContext>.fromOpaque(existing).takeUnretainedValue()

    switch context.phase {
    case .receiving:
        let chunkSize = uploadDataSize.pointee
        if chunkSize > 0 {
            if !context.bodyTooLarge, let uploadData {
                if context.body.count + chunkSize > dispatcher.maxBodyBytes {
                    context.bodyTooLarge = true
                    context.body = []
                } else {
                    UnsafeRawPointer(uploadData).withMemoryRebound(to: UInt8.self, capacity: chunkSize) {
                        context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: chunkSize))
                    }
                }
            }
            uploadDataSize.pointee = 0
            return .YES
        }
        // The upload is complete: the request deadline no longer applies.
        context.phase = .answered
        context.tracked.map(dispatcher.connections.requestArrived(on:))
        if context.bodyTooLarge {
            // The whole body was read (and discarded), so the connection can stay open.
            let refused = mhdPayloadTooLarge(dispatcher.maxBodyBytes, requestID: context.requestID, dispatcher.refusals)
            return mhdQueue(refused, on: connection, closing: dispatcher.isClosing)
        }
        guard dispatcher.admit() else {
            let refused = mhdShuttingDown(requestID: context.requestID, dispatcher.refusals)
            return mhdQueue(refused, on: connection, closing: true)
        }
        context.admitted = true
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { String(cString: $0) } ?? "/",
            query: mhdValues(of: connection, kind: .GET_ARGUMENT_KIND, lowercasingNames: false),
            headers: mhdHeaderMap(context.headerFields),
            body: context.body, peerAddress: context.tracked?.address ?? "")
        context.body = []
        context.headerFields = []
        context.phase = .handling
        MHD_suspend_connection(connection)
        let handler = dispatcher.handler
        Task {
            let response = await handler(request)
            context.deliver(response)
            MHD_resume_connection(context.connection)
        }
        return .YES

    case .handling:
        // Called again after MHD_resume_connection: queue the handler's response now, as libmicrohttpd wants
        // for keep-alive.
        guard let response = context.takeResponse() else { return .YES }
        context.phase = .answered
        return mhdQueue(response, on: connection, closing: dispatcher.isClosing)

    case .answered:
        uploadDataSize.pointee = 0
        return .YES
    }
}

/// `MHD_RequestCompletedCallback`: the request is over (response sent, or the connection died); releases the
/// request's context and, if the handler ran, the in-flight count.
func mhdRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext, let existing = requestContext.pointee else { return }
    requestContext.pointee = nil
    let context = Unmanaged<MHDRequestContext>.fromOpaque(existing).takeRetainedValue()
    let dispatcher = Unmanaged<MHDDispatcher>.fromOpaque(cls).takeUnretainedValue()
    // The next request on this connection has a fresh deadline.
    context.tracked.map(dispatcher.connections.responseSent(on:))
    if context.admitted {
        dispatcher.release()
    }
}

/// `MHD_NotifyConnectionCallback`: counts accepted TCP connections, and tracks each one (its peer address
/// for the per-address cap, its request deadline) from set-up to close, as its socket context.
func mhdConnectionNotified(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let socketContext else { return }
    let dispatcher = Unmanaged<MHDDispatcher>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        guard let connection else { return }
        var text = [CChar](repeating: 0, count: 64)
        let address = broker_mhd_client_address(connection, &text, text.count) == 0
            ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let tracked = dispatcher.connections.opened(address: address, fd: broker_mhd_connection_fd(connection))
        socketContext.pointee = Unmanaged.passRetained(tracked).toOpaque()
        dispatcher.connectionStarted()
    case .CONNECTION_NOTIFY_CLOSED:
        guard let existing = socketContext.pointee else { return }
        socketContext.pointee = nil
        dispatcher.connections.closed(Unmanaged<MHDConnection>.fromOpaque(existing).takeRetainedValue())
    default:
        return
    }
}

/// `MHD_AcceptPolicyCallback`: refuses a connection from an address already holding its cap of connections
/// (trusted proxies exempt).
func mhdAcceptPolicy(_ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t)
    -> MHD_Result
{
    guard let cls else { return .YES }
    var text = [CChar](repeating: 0, count: 64)
    let peer = broker_format_address(address, &text, text.count) == 0
        ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    return Unmanaged<MHDDispatcher>.fromOpaque(cls).takeUnretainedValue().connections.admits(address: peer) ? .YES : .NO
}

/// The tracked connection a request arrived on (the socket context the connection notifier stored).
private func mhdTrackedConnection(_ connection: OpaquePointer) -> MHDConnection? {
    broker_mhd_socket_context(connection).map { Unmanaged<MHDConnection>.fromOpaque($0).takeUnretainedValue() }
}

/// Every field of one kind, in arrival order, duplicates kept, names as sent.
private func mhdFields(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
    final class Collector {
        var fields: [(name: String, value: String)] = []
    }
    let collector = Collector()
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
                collector.fields.append((name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
                return .YES
            }, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.fields
}

/// The header fields as ``HTTPRequest`` holds them: names lower-cased, repeated names joined with ", " in
/// arrival order (the fields the first call of the access handler collected, so they are read from
/// libmicrohttpd once per request).
private func mhdHeaderMap(_ fields: [(name: String, value: String)]) -> [String: String] {
    var headers: [String: String] = [:]
    headers.reserveCapacity(fields.count)
    for field in fields {
        let name = field.name.asciiLowercased()
        if let previous = headers[name] {
            headers[name] = previous + ", " + field.value
        } else {
            headers[name] = field.value
        }
    }
    return headers
}

/// The request's `Content-Length`, when it sent one that parses.
private func mhdDeclaredContentLength(_ connection: OpaquePointer) -> Int? {
    guard let raw = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else { return nil }
    return Int(String(cString: raw).trimmingHTTPWhitespace())
}

/// Collects the request's values of one kind (headers or query arguments) into a dictionary; repeated names
/// are joined with ", ".
private func mhdValues(of connection: OpaquePointer, kind: MHD_ValueKind, lowercasingNames: Bool)
    -> [String: String]
{
    final class Collector {
        var values: [String: String] = [:]
        let lowercasingNames: Bool
        init(lowercasingNames: Bool) { self.lowercasingNames = lowercasingNames }
    }
    let collector = Collector(lowercasingNames: lowercasingNames)
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
                var name = String(cString: key)
                if collector.lowercasingNames { name = name.lowercased() }
                let text = value.map { String(cString: $0) } ?? ""
                if let previous = collector.values[name] {
                    collector.values[name] = previous + ", " + text
                } else {
                    collector.values[name] = text
                }
                return .YES
            }, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.values
}
