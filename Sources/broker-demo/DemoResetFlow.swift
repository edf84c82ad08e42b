import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation

/// `broker demo`'s password reset, end to end as a user sees it: sign-up, the reset request, the mail caught
/// by the demo's sink, the `/auth/action` page (its GET only shows the form), the form's POST with its CSRF
/// cookie, and the new password working where the old one no longer does.
enum DemoResetFlow {
    static let email = "minji@example.com"
    static let oldPassword = "first-password-1"
    static let newPassword = "a-new-password-2"

    /// The `mail` section of the demo's config.
    static func mailSection(_ sink: DemoMailSink) -> JSONValue {
        ["smtpUrl": .string(sink.smtpURL), "from": "Demo App <no-reply@demo.example.com>", "appName": "Demo App"]
    }

    /// A failed step, with what was expected.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs the flow, printing each step; throws when a step does not answer as the contract says.
    /// Returns the link it used. Without `showAddresses` (the servers stop when the demo ends) the broker's
    /// address in the printed mail is replaced by `[broker]`, so that no URL is printed that will not answer.
    @discardableResult
    static func run(
        _ harness: BrokerHarness, sink: DemoMailSink, outbox: OutboxWorker, showAddresses: Bool
    ) async throws
        -> String
    {
        print("== Password reset (an email and password account), mail sent \(sink.description)")
        let signUp = try await harness.post("/v1/signup", ["email": .string(email), "password": .string(oldPassword)])
        print("POST /v1/signup {\"email\": \"\(email)\", ...} -> \(signUp.status)")
        try expect(signUp.status == 201, "sign-up answered \(signUp.status)")

        let asked = try await harness.post("/v1/password/reset", ["email": .string(email)])
        print(
            "POST /v1/password/reset {\"email\": \"\(email)\"} -> \(asked.status) (the same for an address without an account)"
        )
        try expect(asked.status == 204, "the reset request answered \(asked.status)")

        let mail = try require(try await deliver(outbox, sink: sink, expected: 1).first, "no mail arrived")
        print("The outbox delivered it. The mail:")
        for name in ["From", "To", "Subject", "Date", "Message-ID"] {
            print("  \(name): \(mail.headers[name.lowercased()] ?? "")")
        }
        let body = mail.text.trimmingCharacters(in: .newlines)
        let text = showAddresses ? body : body.replacingOccurrences(of: harness.baseURL, with: "[broker]")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { print("  | \(line)") }
        let link = try require(mail.actionLink, "the mail holds no /auth/action link")
        let path = try require(
            link.hasPrefix(harness.baseURL) ? String(link.dropFirst(harness.baseURL.count)) : nil,
            "the link does not point at the broker")

        let page = try await harness.get(path)
        let html = String(decoding: page.body, as: UTF8.self)
        print(
            "GET /auth/action?mode=resetPassword&oobCode=... -> \(page.status): a form for the new password (opening the link changes nothing)"
        )
        try expect(page.status == 200 && html.contains("name=\"newPassword\""), "the page answered \(page.status)")
        let cookie = try require(
            page.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "the page set no CSRF cookie")
        let csrf = try require(
            cookie.split(separator: "=", maxSplits: 1).last.map(String.init), "the CSRF cookie is empty")
        let code = try require(
            URLComponents(string: link)?.queryItems?.first { $0.name == "oobCode" }?.value, "the link has no oobCode")

        let form = "mode=resetPassword&oobCode=\(code)&csrfToken=\(csrf)&newPassword=\(newPassword)"
        let posted = try await harness.request(
            "POST", "/auth/action", body: Array(form.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
        let done = String(decoding: posted.body, as: UTF8.self).contains("Your password has been changed.")
        print(
            "POST /auth/action (the form, with its CSRF cookie) -> \(posted.status)\(done ? ": \"Your password has been changed.\"" : "")"
        )
        try expect(posted.status == 200 && done, "the form's POST answered \(posted.status)")

        let fresh = try await harness.post(
            "/v1/signin/password", ["email": .string(email), "password": .string(newPassword)])
        print("POST /v1/signin/password with the new password -> \(fresh.status)")
        try expect(fresh.status == 200, "signing in with the new password answered \(fresh.status)")
        let stale = try await harness.post(
            "/v1/signin/password", ["email": .string(email), "password": .string(oldPassword)])
        print("POST /v1/signin/password with the old password -> \(stale.status) \(stale.errorCode ?? "")")
        try expect(stale.status == 400, "the old password still answered \(stale.status)")
        let reused = try await harness.post(
            "/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "third-password-3"])
        print(
            "POST /v1/oob/confirm with the same code again -> \(reused.status) \(reused.errorCode ?? "") (a code works once)"
        )
        try expect(reused.errorCode == "INVALID_OOB_CODE", "the used code answered \(reused.status)")
        print("")
        return link
    }

    /// With `--keep-running`: one more reset mail whose link is left for the reader to open in a browser.
    static func leaveALinkToOpen(
        _ harness: BrokerHarness, sink: DemoMailSink, outbox: OutboxWorker, used: String
    ) async throws {
        let asked = try await harness.post("/v1/password/reset", ["email": .string(email)])
        try expect(asked.status == 204, "the second reset request answered \(asked.status)")
        let mails = try await deliver(outbox, sink: sink, expected: 2)
        let link = try require(mails.compactMap(\.actionLink).first { $0 != used }, "the second mail holds no new link")
        print("  a fresh reset link for \(email), unused, to open in a browser:\n    \(link)")
    }

    /// Runs the outbox until the sink holds `expected` mails (at most 20 passes, 0.25 s apart); all of them.
    static func deliver(_ outbox: OutboxWorker, sink: DemoMailSink, expected: Int) async throws -> [CaughtMail] {
        for _ in 0..<20 {
            _ = try await outbox.runOnce()
            let mails = try sink.mails()
            if mails.count >= expected { return mails }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw Failure(description: "the reset mail did not arrive at the demo's sink")
    }

    static func expect(_ condition: Bool, _ problem: @autoclosure () -> String) throws {
        guard condition else { throw Failure(description: "demo step failed: \(problem())") }
    }

    static func require<T>(_ value: T?, _ problem: @autoclosure () -> String) throws -> T {
        guard let value else { throw Failure(description: "demo step failed: \(problem())") }
        return value
    }
}
