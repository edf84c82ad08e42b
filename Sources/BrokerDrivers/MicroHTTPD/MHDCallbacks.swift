import BrokerCore
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
        let context = MHDRequestContext(connection: connection)
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        if let declared = mhdDeclaredContentLength(connection) {
            if declared > dispatcher.maxBodyBytes {
                // Refuse before reading the body; libmicrohttpd closes the connection after this answer.
                context.phase = .answered
                return mhdQueue(mhdPayloadTooLarge(dispatcher.maxBodyBytes), on: connection, closing: true)
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
        // The upload is complete.
        context.phase = .answered
        if context.bodyTooLarge {
            // The whole body was read (and discarded), so the connection can stay open.
            return mhdQueue(mhdPayloadTooLarge(dispatcher.maxBodyBytes), on: connection, closing: dispatcher.isClosing)
        }
        guard dispatcher.admit() else {
            return mhdQueue(mhdShuttingDown(), on: connection, closing: true)
        }
        context.admitted = true
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { String(cString: $0) } ?? "/",
            query: mhdValues(of: connection, kind: .GET_ARGUMENT_KIND, lowercasingNames: false),
            headers: mhdValues(of: connection, kind: .HEADER_KIND, lowercasingNames: true),
            body: context.body)
        context.body = []
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
    if context.admitted {
        Unmanaged<MHDDispatcher>.fromOpaque(cls).takeUnretainedValue().release()
    }
}

/// `MHD_NotifyConnectionCallback`: counts accepted TCP connections.
func mhdConnectionNotified(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, code == .CONNECTION_NOTIFY_STARTED else { return }
    Unmanaged<MHDDispatcher>.fromOpaque(cls).takeUnretainedValue().connectionStarted()
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
