public import Foundation

/// A throwaway certificate authority and a server certificate it signed for `127.0.0.1` (in the subject
/// alternative names), made by the `openssl` command in a temporary directory, for TLS servers in tests.
/// Each ``make()`` makes a new CA, so the certificates of one are not trusted by another's `caFile`.
public struct TestCertificates: Sendable {
    /// The directory holding the files.
    public let directory: URL
    /// The CA's certificate (PEM): what a client is told to trust.
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// The server's certificate (PEM), signed by the CA, for IP 127.0.0.1.
    public var certificateFile: String { directory.appendingPathComponent("server.pem").path }
    /// The server's private key (PEM).
    public var keyFile: String { directory.appendingPathComponent("server.key").path }

    /// A failure to make the files.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The `openssl` command, if installed.
    static let openssl = ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether the `openssl` command is there to make certificates.
    public static var isAvailable: Bool { openssl != nil }

    /// Makes a CA (P-256, valid two days) and a server certificate for 127.0.0.1 signed by it.
    public static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        let extensions = directory.appendingPathComponent("server.ext").path
        try Data("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: URL(fileURLWithPath: extensions))
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await run(
            ["req", "-x509"] + key + [
                "-keyout", directory.appendingPathComponent("ca.key").path, "-out", certificates.caFile, "-days", "2",
                "-subj", "/CN=Broker Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        let request = directory.appendingPathComponent("server.csr").path
        try await run(["req"] + key + ["-keyout", certificates.keyFile, "-out", request, "-subj", "/CN=127.0.0.1"])
        try await run([
            "x509", "-req", "-in", request, "-CA", certificates.caFile,
            "-CAkey", directory.appendingPathComponent("ca.key").path, "-set_serial", "1", "-days", "2",
            "-extfile", extensions, "-out", certificates.certificateFile,
        ])
        return certificates
    }

    /// Removes the files.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `openssl arguments`, waiting at most 20 s without blocking a thread.
    static func run(_ arguments: [String]) async throws {
        guard let openssl else { throw Failure(description: "the openssl command is not installed") }
        // posix_spawn rather than Foundation's Process: ChildProcess explains why.
        let process = try ChildProcess(
            openssl, arguments, environment: ProcessInfo.processInfo.environment, output: .discard)
        for _ in 0..<400 where process.isRunning {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        guard let status = process.status else {
            process.terminate(SIGKILL)
            throw Failure(description: "openssl \(arguments.first ?? "") did not finish")
        }
        guard status == 0 else {
            throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")) exited \(status)")
        }
    }
}
