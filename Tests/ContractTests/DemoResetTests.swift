import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// `broker demo` shows a password reset end to end: the request, the mail caught by a local SMTP sink (over
/// real SMTP when aiosmtpd is installed), the `/auth/action` page and its form, and the new password working.
@Suite("broker demo: the password reset", .serialized)
struct DemoResetTests {
    @Test func theDemoShowsAResetFromTheRequestToTheNewPassword() async throws {
        let child = try ProcessTests.spawn(["demo"])
        let status = try await child.wait(seconds: 90)
        let text = child.stdout
        #expect(status == 0, "\(child.stderr)")
        let steps = [
            "POST /v1/signup {\"email\": \"minji@example.com\", ...} -> 201",
            "POST /v1/password/reset {\"email\": \"minji@example.com\"} -> 204",
            "  To: minji@example.com", "  Subject: Reset your password for Demo App",
            "  | [broker]/auth/action?mode=resetPassword&oobCode=",
            "GET /auth/action?mode=resetPassword&oobCode=... -> 200",
            "POST /auth/action (the form, with its CSRF cookie) -> 200: \"Your password has been changed.\"",
            "POST /v1/signin/password with the new password -> 200",
            "POST /v1/signin/password with the old password -> 400 INVALID_LOGIN_CREDENTIALS",
            "POST /v1/oob/confirm with the same code again -> 400 INVALID_OOB_CODE",
        ]
        for step in steps { #expect(text.contains(step), "\(step)") }
        if SMTPTestServer.isAvailable {
            #expect(text.contains("mail sent over SMTP (libcurl) to a local sink, aiosmtpd on 127.0.0.1:"))
        } else {
            #expect(text.contains("to an in-memory sink"))
        }
        #expect(!text.contains("http://127.0.0.1"))
    }

    /// With --keep-running the demo leaves an unused reset link whose page answers with the form.
    @Test func keptRunningTheDemoLeavesAResetLinkThatOpens() async throws {
        let kept = try ProcessTests.spawn(["demo", "--keep-running"])
        _ = try await kept.waitForLog("unused, to open in a browser", onStandardOutput: true, seconds: 90)
        _ = try await kept.waitForLog("/auth/action?mode=resetPassword&oobCode=", onStandardOutput: true, seconds: 10)
        let lines = kept.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let link = try #require(lines.last { $0.hasPrefix("http://127.0.0.1:") && $0.contains("/auth/action?") })
        let client = try CurlHTTPClient()
        let page = try await client.send(HTTPClientRequest(url: link))
        await client.shutdown()
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("name=\"newPassword\""))
        #expect(kept.isRunning)
        kept.terminate()
        #expect(try await kept.wait(seconds: 30) == 0)
    }
}
