import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Second factors (contract section 14) against a live broker on SQLite, with codes from a TOTP client nobody here
/// wrote: pyotp (PyPI) reads the `otpauth://` URI the broker gives, as an authenticator app scans it, and its codes
/// enrol the factor and finish the sign-in's second step over HTTP.
@Suite struct TOTPContractTests {
    static let pyotpVersion = "2.12.0"
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python of the pyotp environment: `BROKER_TEST_PYOTP_PYTHON`, or `.build/pyotp-venv`, made (from PyPI) when
    /// it lacks the pinned pyotp. `.ci/run` makes it beforehand.
    static func pyotpPython() async throws -> String {
        if let python = ProcessInfo.processInfo.environment["BROKER_TEST_PYOTP_PYTHON"], !python.isEmpty {
            return python
        }
        let venv = packageRoot.appendingPathComponent(".build/pyotp-venv")
        let python = venv.appendingPathComponent("bin/python").path
        let environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
        if FileManager.default.isExecutableFile(atPath: python) {
            let check = try ChildProcess(
                python, ["-c", "import importlib.metadata as m; print(m.version('pyotp'))"], environment: environment)
            if try await check.wait(seconds: 60) == 0, check.stdout.contains(pyotpVersion) { return python }
        }
        try? FileManager.default.removeItem(at: venv)
        let make = try ChildProcess("/usr/bin/python3", ["-m", "venv", venv.path], environment: environment)
        try #require(try await make.wait(seconds: 120) == 0, "python3 -m venv failed:\n\(make.stderr.suffix(2000))")
        let pip = try ChildProcess(
            venv.appendingPathComponent("bin/pip").path,
            ["install", "--quiet", "--disable-pip-version-check", "pyotp==\(pyotpVersion)"], environment: environment)
        try #require(try await pip.wait(seconds: 300) == 0, "pip install pyotp failed:\n\(pip.stderr.suffix(2000))")
        return python
    }

    /// What pyotp reads from `uri`: its issuer, digits and period, then the codes of now and of the next step.
    static func pyotp(_ uri: String) async throws -> (issuer: String, digits: String, period: String, codes: [String]) {
        let script = """
            import sys, time, pyotp
            totp = pyotp.parse_uri(sys.argv[1])
            print(totp.issuer, totp.digits, totp.interval)
            now = time.time()
            print(totp.at(now), totp.at(now + totp.interval))
            """
        let run = try ChildProcess(
            try await pyotpPython(), ["-c", script, uri], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        try #require(try await run.wait(seconds: 60) == 0, "pyotp failed:\n\(run.stderr.suffix(2000))")
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(lines.count == 2 && lines[0].count == 3 && lines[1].count == 2, "pyotp said \(run.stdout)")
        return (lines[0][0], lines[0][1], lines[0][2], lines[1])
    }

    @Test func pyotpEnrolsAndFinishesASignInOverHTTP() async throws {
        let cipher = OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32)))
        let broker = try await BrokerHarness.start(cipher: cipher) { document in
            guard case .object(var members) = document else { return document }
            members["mfa"] = ["totp": ["enabled": true, "issuer": "Acme"]]
            return .object(members)
        }
        do {
            let session = try await broker.post("/v1/signup", ["email": "otp@example.com", "password": "secret-1"])
            let bearer = ["Authorization": "Bearer " + (session.json?["idToken"]?.stringValue ?? "")]
            let started = try await broker.post("/v1/me/mfa/totp", [:], headers: bearer)
            #expect(started.status == 200)
            let uri = try #require(started.json?["otpauthUri"]?.stringValue)
            let read = try await Self.pyotp(uri)
            #expect(read.issuer == "Acme" && read.digits == "6" && read.period == "30")
            let verified = try await broker.post(
                "/v1/me/mfa/totp/verify",
                [
                    "enrollmentId": .string(try #require(started.json?["enrollmentId"]?.stringValue)),
                    "code": .string(read.codes[0]),
                ],
                headers: bearer)
            #expect(verified.status == 200)
            let factorID = try #require(verified.json?["factor"]?["factorId"]?.stringValue)

            let held = try await broker.post(
                "/v1/signin/password", ["email": "otp@example.com", "password": "secret-1"])
            #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
            let pending = try #require(held.json?["error"]?["mfaPendingCredential"]?.stringValue)
            // The enrolment used this step's code: the next step's, within the window, finishes the sign-in.
            let done = try await broker.post(
                "/v1/signin/mfa",
                [
                    "mfaPendingCredential": .string(pending), "factorId": .string(factorID),
                    "code": .string(read.codes[1]),
                ])
            #expect(done.status == 200)
            let idToken = try #require(done.json?["idToken"]?.stringValue)
            #expect(try JWT(parsing: idToken).claims["mfa"] == "totp")
            let uid = AccountID(try #require(done.json?["user"]?["uid"]?.stringValue))
            #expect(try await broker.store.secondFactors(uid: uid).first?.lastUsedStep != nil)
            await broker.stop()
        } catch {
            await broker.stop()
            throw error
        }
    }
}
