import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The `/auth/action` page speaks the reader's language, as the mail that links to it does (contract section 9):
/// the browser's `Accept-Language` when it is English, Korean or Japanese, else `mail.defaultLanguage`. Only the
/// words change: the form, its CSRF check and what it does are the same in every language.
@Suite struct ActionPageLanguageTests {
    static func start(defaultLanguage: String? = nil) async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: ManualClock(Date())) { document in
            guard case .object(var members) = document else { return document }
            var mail: [String: JSONValue] = ["smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com"]
            if let defaultLanguage { mail["defaultLanguage"] = .string(defaultLanguage) }
            members["mail"] = .object(mail)
            return .object(members)
        }
    }

    /// A reset code for a new account `email`.
    static func resetCode(_ broker: InProcessBroker, _ email: String) async throws -> String {
        #expect(await broker.post("/v1/signup", ["email": .string(email), "password": "first-pass"]).status == 201)
        return try await broker.services.actionCodes.issueLink(
            .resetPassword, email: email, continueURL: nil, requestID: "t"
        ).oobCode
    }

    static func open(
        _ broker: InProcessBroker, _ code: String, language: String?
    ) async throws -> (html: String, cookie: String) {
        let headers = language.map { ["Accept-Language": $0] } ?? [:]
        let page = await broker.request("GET", "/auth/action?mode=resetPassword&oobCode=\(code)", headers: headers)
        #expect(page.status == 200)
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        return (String(decoding: page.body, as: UTF8.self), cookie)
    }

    static func submit(
        _ broker: InProcessBroker, _ code: String, cookie: String, password: String, language: String?
    ) async -> (status: Int, html: String) {
        let csrf = cookie.split(separator: "=", maxSplits: 1).last.map(String.init) ?? ""
        let form = "mode=resetPassword&oobCode=\(code)&csrfToken=\(csrf)&newPassword=\(password)"
        var headers = ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie]
        if let language { headers["Accept-Language"] = language }
        let response = await broker.request("POST", "/auth/action", body: Array(form.utf8), headers: headers)
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var header: String?
        var defaultLanguage: String?
        var lang: String
        var title: String
        var field: String
        var button: String
        var weak: String
        var done: String
        var used: String
        var testDescription: String { "\(header ?? "no header") / default \(defaultLanguage ?? "en") -> \(lang)" }
    }

    static let cases: [Case] = [
        Case(
            header: "ja-JP,ja;q=0.9,en;q=0.5", defaultLanguage: nil, lang: "ja", title: "新しいパスワードの設定",
            field: "新しいパスワード", button: "パスワードを変更", weak: "パスワードは6文字以上にしてください。",
            done: "パスワードを変更しました。", used: "有効期限が切れたか、すでに使用されています"),
        Case(
            header: nil, defaultLanguage: "ko", lang: "ko", title: "새 비밀번호 설정", field: "새 비밀번호",
            button: "비밀번호 변경", weak: "비밀번호는 6자 이상으로 정해 주세요.", done: "비밀번호가 변경되었습니다.",
            used: "만료되었거나 이미 사용되었습니다"),
        Case(
            header: "de-DE", defaultLanguage: "ja", lang: "ja", title: "新しいパスワードの設定", field: "新しいパスワード",
            button: "パスワードを変更", weak: "パスワードは6文字以上にしてください。", done: "パスワードを変更しました。",
            used: "有効期限が切れたか"),
        Case(
            header: "en-GB", defaultLanguage: "ko", lang: "en", title: "Choose a new password", field: "New password",
            button: "Change password", weak: "Choose a password of at least 6 characters.",
            done: "Your password has been changed.", used: "has expired or has already been used"),
    ]

    @Test(arguments: cases)
    func theResetPageSpeaksTheReadersLanguage(_ expected: Case) async throws {
        let broker = try await Self.start(defaultLanguage: expected.defaultLanguage)
        let code = try await Self.resetCode(broker, "reader@example.com")
        let (html, cookie) = try await Self.open(broker, code, language: expected.header)
        #expect(html.contains("<html lang=\"\(expected.lang)\">"))
        #expect(html.contains("<h1>\(expected.title)</h1>"))
        #expect(html.contains("<label>\(expected.field) <input type=\"password\" name=\"newPassword\""))
        #expect(html.contains("<button type=\"submit\">\(expected.button)</button>"))

        // A short password: refused in the same language, the form shown again, nothing changed.
        let weak = await Self.submit(broker, code, cookie: cookie, password: "12345", language: expected.header)
        #expect(weak.status == 400)
        #expect(weak.html.contains(expected.weak))
        #expect(weak.html.contains("name=\"csrfToken\""))
        #expect(
            await broker.post("/v1/signin/password", ["email": "reader@example.com", "password": "first-pass"]).status
                == 200)

        let done = await Self.submit(broker, code, cookie: cookie, password: "second-pass", language: expected.header)
        #expect(done.status == 200)
        #expect(done.html.contains(expected.done))
        #expect(
            await broker.post("/v1/signin/password", ["email": "reader@example.com", "password": "second-pass"]).status
                == 200)

        // The code again: used, said in the same language, and nothing changes.
        let used = await Self.submit(broker, code, cookie: cookie, password: "third-pass", language: expected.header)
        #expect(used.status == 400)
        #expect(used.html.contains(expected.used))
        #expect(
            await broker.post("/v1/signin/password", ["email": "reader@example.com", "password": "third-pass"]).status
                == 400)
    }

    /// A form without its CSRF cookie is refused whatever the language, in that language.
    @Test func aFormWithoutItsCookieIsRefusedInTheReadersLanguage() async throws {
        let broker = try await Self.start()
        let code = try await Self.resetCode(broker, "nocookie@example.com")
        let form = "mode=resetPassword&oobCode=\(code)&csrfToken=forged&newPassword=second-pass"
        let response = await broker.request(
            "POST", "/auth/action", body: Array(form.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "ja"])
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self).contains("期限切れのフォーム"))
        #expect(
            await broker.post("/v1/signin/password", ["email": "nocookie@example.com", "password": "first-pass"]).status
                == 200)
    }
}
