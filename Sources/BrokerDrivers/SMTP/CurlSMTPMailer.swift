public import BrokerCore
import BrokerModel
import CBrokerShims
import CCurl
public import Foundation

/// The ``MailSending`` port over libcurl's SMTP: `smtps://` (TLS from the first byte) or `smtp://` with
/// STARTTLS, the user name from the URL and the password given here (from `BROKER_SMTP_PASSWORD`). On `smtp://`
/// STARTTLS is required (`CURLUSESSL_ALL`) when credentials are sent or `requireTLS` is set, and used when offered
/// (`CURLUSESSL_TRY`) otherwise. The server's certificate and host name are always verified, against `caFile`
/// when given and the system's trust store otherwise. One connection per mail, made when the mail is sent,
/// never at start. Each send runs `curl_easy_perform` on the mailer's own serial queue, never on Swift's
/// cooperative pool; mail volume is low enough that one connection at a time is plenty.
public final class CurlSMTPMailer: MailSending {
    private let url: String
    private let password: String?
    private let security: SMTPSecurity
    private let timeout: TimeInterval
    private let queue = DispatchQueue(label: "broker-smtp")

    /// Creates a mailer for `url` (`smtp://[user@]host[:port]` or `smtps://…`); `timeout` bounds a whole send.
    /// `caFile` replaces the system's trust store; `requireTLS` refuses a `smtp://` server without STARTTLS,
    /// and is implied whenever credentials are sent (a `password`, or a user name in `url`).
    public init(url: String, password: String?, caFile: String? = nil, requireTLS: Bool = false, timeout: TimeInterval = 30) {
        self.url = url
        self.password = password
        let credentials = password != nil || !(URLComponents(string: url)?.user ?? "").isEmpty
        self.security = SMTPSecurity(caFile: caFile, requireTLS: requireTLS || credentials)
        self.timeout = timeout
    }

    /// The mailer `mail` describes: its URL, `BROKER_SMTP_PASSWORD`, `mail.caFile` and
    /// ``MailSettings/requiresTLS``.
    public convenience init(settings mail: MailSettings, timeout: TimeInterval = 30) {
        self.init(url: mail.smtpURL, password: mail.smtpPassword, caFile: mail.caFile, requireTLS: mail.requiresTLS, timeout: timeout)
    }

    /// Sends `message`; throws ``OutboxDeliveryError`` (`.permanent` for a 5xx reply, `.transient` otherwise).
    public func send(_ message: MailMessage) async throws {
        guard MailMessage.isValidAddress(message.fromAddress), MailMessage.isValidAddress(message.to) else {
            throw OutboxDeliveryError(.permanent, "invalid sender or recipient address")
        }
        let bytes = message.rendered(date: Date())
        let (url, password, security, timeout) = (self.url, self.password, self.security, self.timeout)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    let upload = try SMTPUpload(
                        url: url, password: password, security: security, from: message.fromAddress, to: message.to,
                        bytes: bytes, timeout: timeout)
                    try upload.perform()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// How a send protects its connection: the CA file to trust and whether `smtp://` must upgrade with STARTTLS.
struct SMTPSecurity: Sendable {
    var caFile: String?
    var requireTLS: Bool
}

/// One SMTP transfer: the easy handle, recipient list and error buffer (freed in `deinit`) and the message
/// being read out. Confined to the mailer's queue.
final class SMTPUpload {
    private let easy: UnsafeMutableRawPointer
    private var recipients: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let bytes: [UInt8]
    private let password: String?
    private var offset = 0

    init(
        url: String, password: String?, security: SMTPSecurity, from: String, to: String, bytes: [UInt8],
        timeout: TimeInterval
    ) throws {
        try Self.check(curlGlobalInitialization, "curl_global_init")
        guard let easy = curl_easy_init() else { throw OutboxDeliveryError(.transient, "curl_easy_init failed") }
        self.easy = easy
        self.bytes = bytes
        self.password = password
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let this = Unmanaged.passUnretained(self).toOpaque()
        try setLong(CURLOPT_NOSIGNAL, 1)
        try setString(CURLOPT_PROTOCOLS_STR, "smtp,smtps")
        try setString(CURLOPT_URL, url)
        if let password { try setString(CURLOPT_PASSWORD, password) }
        if url.lowercased().hasPrefix("smtp://") {
            try setLong(CURLOPT_USE_SSL, Int((security.requireTLS ? CURLUSESSL_ALL : CURLUSESSL_TRY).rawValue))
        }
        // libcurl's defaults, set anyway: verification is never off, whatever the build's defaults.
        try setLong(CURLOPT_SSL_VERIFYPEER, 1)
        try setLong(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = security.caFile { try setString(CURLOPT_CAINFO, caFile) }
        try setLong(CURLOPT_TIMEOUT_MS, Int(max(1, min(timeout, 600)) * 1000))
        try setLong(CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, min(timeout, 10)) * 1000))
        try setString(CURLOPT_MAIL_FROM, "<\(from)>")
        guard let list = curl_slist_append(nil, "<\(to)>") else {
            throw OutboxDeliveryError(.transient, "curl_slist_append failed")
        }
        recipients = list
        try Self.check(broker_curl_easy_setopt_pointer(easy, CURLOPT_MAIL_RCPT, list), "CURLOPT_MAIL_RCPT")
        try Self.check(broker_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try setLong(CURLOPT_UPLOAD, 1)
        try Self.check(broker_curl_easy_setopt_read_callback(easy, curlReadMessage), "CURLOPT_READFUNCTION")
        try Self.check(broker_curl_easy_setopt_pointer(easy, CURLOPT_READDATA, this), "CURLOPT_READDATA")
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(recipients)
        errorBuffer.deallocate()
    }

    /// Runs the whole SMTP conversation (blocking: the mailer's queue only).
    func perform() throws {
        let result = curl_easy_perform(easy)
        guard result != CURLE_OK else { return }
        var reply = 0
        _ = broker_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &reply)
        var detail = String(cString: curl_easy_strerror(result))
        if errorBuffer.pointee != 0 { detail += " (\(String(cString: errorBuffer)))" }
        if reply > 0 { detail += "; server replied \(reply)" }
        // libcurl does not put the password in its messages; scrubbed anyway, as logs and lastError show this.
        if let password, !password.isEmpty { detail = detail.replacingOccurrences(of: password, with: "[redacted]") }
        // A 5xx reply refuses this mail for good; a failed login is the operator's to fix, so it is retried.
        let permanent = (500...599).contains(reply) && result != CURLE_LOGIN_DENIED
        throw OutboxDeliveryError(permanent ? .permanent : .transient, detail)
    }

    /// Copies the next bytes of the message into libcurl's buffer; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
        }
        offset += count
        return count
    }

    private func setLong(_ option: CURLoption, _ value: Int) throws {
        try Self.check(broker_curl_easy_setopt_long(easy, option, value), "curl_easy_setopt \(option.rawValue)")
    }

    private func setString(_ option: CURLoption, _ value: String) throws {
        try Self.check(broker_curl_easy_setopt_string(easy, option, value), "curl_easy_setopt \(option.rawValue)")
    }

    /// The libcurl funnel (``curlCheck(_:_:errorBuffer:)``), with its failure as a transient ``OutboxDeliveryError``.
    static func check(_ code: CURLcode, _ operation: @autoclosure () -> String) throws {
        do {
            try curlCheck(code, operation())
        } catch {
            throw OutboxDeliveryError(.transient, error.detail)
        }
    }
}

/// `CURLOPT_READFUNCTION`: runs on the mailer's queue inside `curl_easy_perform`; `userdata` is the upload.
private func curlReadMessage(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let userdata else { return 0 }
    return Unmanaged<SMTPUpload>.fromOpaque(userdata).takeUnretainedValue().read(into: buffer, capacity: size * count)
}
