import BrokerCore
import BrokerModel
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// aiosmtpd (Debian's `python3-aiosmtpd`) on a loopback port, writing each mail it accepts into a Maildir
/// the test reads. Started and stopped by the test; suites that need it skip when ``isAvailable`` is false.
public final class SMTPTestServer: @unchecked Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Its directory: `mail/new` holds the received mails.
    public let directory: URL
    private let process: ChildProcess

    /// A failure to start.
    public struct StartFailure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The Python that has aiosmtpd: Debian's, not a version manager's shim.
    static let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

    /// Whether aiosmtpd can be imported.
    public static let isAvailable: Bool = {
        // posix_spawn rather than Foundation's Process (ChildProcess says why); bounded at 30 s.
        guard
            let probe = try? ChildProcess(
                python, ["-c", "import aiosmtpd"], environment: ProcessInfo.processInfo.environment, output: .discard)
        else { return false }
        for _ in 0..<3_000 where probe.isRunning { usleep(10_000) }
        probe.terminate(SIGKILL)
        return probe.status == 0
    }()

    /// How the server protects its connections.
    public enum Security: Sendable {
        /// Plain SMTP; no STARTTLS offered.
        case plain
        /// TLS from the first byte (`smtps://`) with `certificate`.
        case implicitTLS(TestCertificates)
        /// Plain SMTP that offers STARTTLS with `certificate` and refuses mail until the client upgraded.
        case startTLS(TestCertificates)
    }

    /// A user name and password the server requires (`AUTH`, only over TLS when the server has TLS).
    public struct Login: Sendable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates a login.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The server: options as JSON in argv[1]. Controller's readiness probe is replaced so that it also works
    /// on a TLS port (it does not verify: the probe only checks that the server answers).
    static let script = """
        import sys, os, threading, ssl, json, socket
        from aiosmtpd.controller import Controller
        from aiosmtpd.handlers import Mailbox
        from aiosmtpd.smtp import AuthResult
        options = json.loads(sys.argv[1])
        directory = options["directory"]
        kwargs = {}
        context = None
        if options.get("certificate"):
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(options["certificate"], options["key"])
        if options.get("tls") == "implicit":
            kwargs["ssl_context"] = context
        elif options.get("tls") == "starttls":
            kwargs["tls_context"] = context
            kwargs["require_starttls"] = True
        if options.get("user") is not None:
            user, password = options["user"].encode(), options["password"].encode()
            def authenticator(server, session, envelope, mechanism, data):
                ok = bytes(data.login) == user and bytes(data.password) == password
                return AuthResult(success=ok, handled=False)
            kwargs["authenticator"] = authenticator
            kwargs["auth_required"] = True
            kwargs["auth_require_tls"] = context is not None
        class Server(Controller):
            def _trigger_server(self):
                with socket.create_connection((self.hostname, self.port), 1.0) as s:
                    if self.ssl_context:
                        probe = ssl.create_default_context()
                        probe.check_hostname = False
                        probe.verify_mode = ssl.CERT_NONE
                        with probe.wrap_socket(s) as t:
                            t.recv(1024)
                    else:
                        s.recv(1024)
        controller = Server(Mailbox(os.path.join(directory, "mail")), hostname="127.0.0.1", port=options["port"], **kwargs)
        controller.start()
        open(os.path.join(directory, "ready"), "w").close()
        threading.Event().wait()
        """

    /// Starts the server on `port` (a free one when nil), in `directory` (a new temporary one when nil), with
    /// `security` and an optional required `login`, and returns once it accepts connections. It waits at most
    /// 30 s for Python to import aiosmtpd and listen (a loaded machine running the whole suite is slow at it);
    /// on a port it picked, a server that exits first (another process took the port) is started again on
    /// another, at most three times.
    public init(port: Int? = nil, directory: URL? = nil, security: Security = .plain, login: Login? = nil) async throws {
        if let directory {
            self.directory = directory
        } else {
            self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        }
        let ready = self.directory.appendingPathComponent("ready").path
        var options: [String: JSONValue] = ["directory": .string(self.directory.path)]
        switch security {
        case .plain: break
        case .implicitTLS(let certificates), .startTLS(let certificates):
            options["tls"] = { if case .implicitTLS = security { return "implicit" } else { return "starttls" } }()
            options["certificate"] = .string(certificates.certificateFile)
            options["key"] = .string(certificates.keyFile)
        }
        if let login {
            options["user"] = .string(login.user)
            options["password"] = .string(login.password)
        }
        var failures: [String] = []
        for _ in 0..<(port == nil ? 3 : 1) {
            let candidate = try port ?? Self.freePort()
            options["port"] = .int(Int64(candidate))
            try? FileManager.default.removeItem(atPath: ready)
            // Its output to /dev/null: an inherited stderr would keep `swift test` waiting. posix_spawn rather
            // than Foundation's Process (ChildProcess says why).
            let started = try ChildProcess(
                Self.python, ["-c", Self.script, String(decoding: JSONValue.object(options).serialized(), as: UTF8.self)],
                environment: ProcessInfo.processInfo.environment, output: .discard)
            for _ in 0..<600 where !FileManager.default.fileExists(atPath: ready) {
                guard started.isRunning else { break }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            if FileManager.default.fileExists(atPath: ready) {
                self.port = candidate
                process = started
                return
            }
            failures.append(started.isRunning ? "port \(candidate): not listening after 30 s" : "port \(candidate): exited")
            started.terminate(SIGKILL)
        }
        throw StartFailure(description: "aiosmtpd did not start (\(failures.joined(separator: "; ")))")
    }

    /// Stops the server with SIGKILL, without waiting. Not SIGTERM: a test process that blocks SIGTERM (as
    /// the broker's signal handling does) passes the blocked mask on to its children. Not a blocking wait:
    /// that would hold one of the few threads of Swift's cooperative pool. And not by closing a pipe: a pipe
    /// to the child can be inherited by processes other tests start.
    public func stop() {
        process.terminate(SIGKILL)
    }

    /// The mails received so far, as text, in file-name order.
    public func messages() throws -> [String] {
        let new = directory.appendingPathComponent("mail/new")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: new.path) else { return [] }
        return try names.sorted().map { String(decoding: try Data(contentsOf: new.appendingPathComponent($0)), as: UTF8.self) }
    }

    /// A loopback port nothing listens on right now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartFailure(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else { throw StartFailure(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
