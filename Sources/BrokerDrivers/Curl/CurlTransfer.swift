import BrokerCore
import BrokerModel
import CBrokerShims
import CCurl
import Foundation

/// One outbound request: its libcurl easy handle, header list and error buffer (freed in `deinit`), the
/// response being collected, and the continuation waiting for it.
///
/// `@unchecked Sendable`: the transfer is built on the caller's task, then handed to the transfer thread
/// through ``CurlMultiLoop``'s lock, and from then on only that thread touches it (the callbacks run there,
/// and it resumes the continuation); `cancelRequested` is guarded by ``CurlMultiLoop``'s lock.
final class CurlTransfer: @unchecked Sendable {
    /// The easy handle (`CURL *`).
    let easy: UnsafeMutableRawPointer
    /// The request header list handed to libcurl (`CURLOPT_HTTPHEADER`).
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// `CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The largest response body accepted.
    private let maxResponseBytes: Int

    /// Response headers so far, names lower-cased.
    private var headers: [String: String] = [:]
    /// Response body so far.
    private var body: [UInt8] = []
    /// Whether the body passed `maxResponseBytes`.
    private var bodyTooLarge = false
    /// The caller waiting for the outcome; resumed exactly once.
    var continuation: CheckedContinuation<HTTPClientResponse, any Error>?
    /// Set (under the loop's lock) when the caller's task is cancelled.
    var cancelRequested = false

    /// Creates the easy handle for `request` and sets every option; throws ``HTTPClientError`` when libcurl
    /// refuses one (e.g. a malformed URL is only found when the transfer starts, as `.transport`).
    init(request: HTTPClientRequest, maxResponseBytes: Int) throws(HTTPClientError) {
        try curlCheck(curlGlobalInitialization, "curl_global_init")
        guard let easy = curl_easy_init() else { throw HTTPClientError(.transport, "curl_easy_init failed") }
        self.easy = easy
        self.maxResponseBytes = maxResponseBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configure(for: request)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Sets the options for `request`.
    private func configure(for request: HTTPClientRequest) throws(HTTPClientError) {
        let this = Unmanaged.passUnretained(self).toOpaque()
        try setLong(CURLOPT_NOSIGNAL, 1)
        try setLong(CURLOPT_FOLLOWLOCATION, 0)
        try setString(CURLOPT_PROTOCOLS_STR, "http,https")
        try setString(CURLOPT_URL, request.url)
        try setLong(CURLOPT_TIMEOUT_MS, Self.timeoutMilliseconds(request.timeout))
        try curlCheck(broker_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try curlCheck(broker_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody), "CURLOPT_WRITEFUNCTION")
        try curlCheck(broker_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, this), "CURLOPT_WRITEDATA")
        try curlCheck(broker_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader), "CURLOPT_HEADERFUNCTION")
        try curlCheck(broker_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, this), "CURLOPT_HEADERDATA")

        let method = request.method
        let sendsBody = !request.body.isEmpty || method == "POST"
        if method == "HEAD" {
            try setLong(CURLOPT_NOBODY, 1)
        } else if method != "POST" && (method != "GET" || sendsBody) {
            try setString(CURLOPT_CUSTOMREQUEST, method)
        }
        if sendsBody {
            try curlCheck(
                broker_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
                "CURLOPT_POSTFIELDSIZE_LARGE")
            let code = request.body.withUnsafeBytes { bytes -> CURLcode in
                // libcurl copies the bytes now (COPYPOSTFIELDS); an empty body still needs a valid pointer.
                guard let base = bytes.baseAddress else {
                    return "".withCString { broker_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) }
                }
                return broker_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            }
            try curlCheck(code, "CURLOPT_COPYPOSTFIELDS")
        }

        // The request carries exactly the caller's headers: libcurl's own `Expect: 100-continue` and
        // form-urlencoded `Content-Type` defaults are switched off (a header with no value removes it).
        var lines: [String] = []
        var hasContentType = false
        var hasExpect = false
        for (name, value) in request.headers {
            guard Self.isValidHeader(name: name, value: value) else {
                throw HTTPClientError(.transport, "invalid request header name or value")
            }
            let lowered = name.lowercased()
            hasContentType = hasContentType || lowered == "content-type"
            hasExpect = hasExpect || lowered == "expect"
            // "Name;" is libcurl's spelling of a header sent with an empty value.
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        if !hasExpect { lines.append("Expect:") }
        if sendsBody && !hasContentType { lines.append("Content-Type:") }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPClientError(.transport, "curl_slist_append failed")
            }
            headerList = appended
        }
        try curlCheck(broker_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
    }

    /// Appends a chunk of body; false once the body would pass the limit.
    func appendBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard body.count + chunk.count <= maxResponseBytes else {
            bodyTooLarge = true
            return false
        }
        body.append(contentsOf: chunk)
        return true
    }

    /// Records one header line; a status line starts a new header block (after a `100 Continue`).
    func appendHeaderLine(_ line: UnsafeRawBufferPointer) {
        switch Self.parseHeaderLine(line) {
        case .statusLine:
            headers = [:]
        case .field(let name, let value):
            if let previous = headers[name] {
                headers[name] = previous + ", " + value
            } else {
                headers[name] = value
            }
        case nil:
            break
        }
    }

    /// What one line of a response head is.
    enum HeaderLine: Equatable {
        /// `HTTP/…`: a new head begins.
        case statusLine
        /// A field: its name lower-cased, and its value, both trimmed.
        case field(name: String, value: String)
    }

    /// Parses one line of a response head as libcurl hands it over (with its line break); nil for a line
    /// that is neither a status line nor a field (the blank line that ends the head, a line without a
    /// colon or name). Text that is not UTF-8 is read as Latin-1.
    static func parseHeaderLine(_ line: UnsafeRawBufferPointer) -> HeaderLine? {
        if line.starts(with: "HTTP/".utf8) { return .statusLine }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = text(line[..<colon]).trimmingHTTPWhitespace().lowercased()
        guard !name.isEmpty else { return nil }
        let value = String(text(line[(colon + 1)...]).trimmingHTTPWhitespace())
        return .field(name: name, value: value)
    }

    /// `bytes` as UTF-8, or as Latin-1 when they are not UTF-8.
    private static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        var latin1 = String.UnicodeScalarView()
        latin1.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return String(latin1)
    }

    /// Resumes the caller with the outcome of the finished transfer (transfer thread, after the handle left
    /// the multi handle).
    func complete(with result: CURLcode) {
        do {
            if bodyTooLarge {
                throw HTTPClientError(.transport, "response body exceeds \(maxResponseBytes) bytes")
            }
            try curlCheck(result, "transfer", errorBuffer: errorBuffer)
            var status = 0
            try curlCheck(broker_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status), "CURLINFO_RESPONSE_CODE")
            resume(with: .success(HTTPClientResponse(status: status, headers: headers, body: body)))
        } catch {
            resume(with: .failure(error))
        }
    }

    /// Resumes the caller with `error`.
    func fail(_ error: any Error) {
        resume(with: .failure(error))
    }

    /// Resumes the continuation, once.
    private func resume(with result: Result<HTTPClientResponse, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(with: result)
    }

    /// `curl_easy_setopt` for a `long` option, through the funnel.
    private func setLong(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try curlCheck(broker_curl_easy_setopt_long(easy, option, value), "curl_easy_setopt \(option.rawValue)")
    }

    /// `curl_easy_setopt` for a string option (libcurl copies it), through the funnel.
    private func setString(_ option: CURLoption, _ value: String) throws(HTTPClientError) {
        try curlCheck(broker_curl_easy_setopt_string(easy, option, value), "curl_easy_setopt \(option.rawValue)")
    }

    /// The request timeout for `CURLOPT_TIMEOUT_MS`: at least 1 ms; 0 (none) only for an infinite timeout.
    static func timeoutMilliseconds(_ timeout: TimeInterval) -> Int {
        guard !timeout.isNaN else { return 1 }
        guard timeout.isFinite else { return timeout > 0 ? 0 : 1 }
        return Int(max(1, min(Double(Int32.max), (timeout * 1000).rounded(.up))))
    }

    /// Whether a header can be sent as given: a token name and a value without line breaks.
    private static func isValidHeader(name: String, value: String) -> Bool {
        guard !name.isEmpty else { return false }
        let forbiddenInName: Set<UInt8> = [0x20, 0x09, 0x3A, 0x0D, 0x0A, 0x00]
        if name.utf8.contains(where: { forbiddenInName.contains($0) || $0 >= 0x7F }) { return false }
        return !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
    }
}
