import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite("Mail: MIME, templates, settings")
struct MailTests {
    static let message = MailMessage(
        from: "Démo <no-reply@example.com>", to: "alice@example.com", subject: "비밀번호 재설정",
        text: "Line one = café\nhttp://127.0.0.1/auth/action?mode=resetPassword&oobCode=abc\n",
        html: "<p>안녕하세요</p>")

    @Test func theMessageHasItsHeadersAndTwoEncodedParts() throws {
        let text = String(decoding: Self.message.rendered(date: Date(timeIntervalSince1970: 1_800_000_000)), as: UTF8.self)
        #expect(text.contains("Date: Fri, 15 Jan 2027 08:00:00 +0000\r\n"))
        #expect(text.contains("From: =?UTF-8?B?" + Base64.encode(Array("Démo".utf8)) + "?= <no-reply@example.com>\r\n"))
        #expect(text.contains("Subject: =?UTF-8?B?" + Base64.encode(Array("비밀번호 재설정".utf8)) + "?=\r\n"))
        #expect(text.range(of: #"Message-ID: <[0-9a-f]{32}@example\.com>"#, options: .regularExpression) != nil)
        #expect(text.contains("MIME-Version: 1.0\r\n"))
        #expect(text.contains("Content-Transfer-Encoding: quoted-printable\r\n\r\nLine one =3D caf=C3=A9\r\n"))
        #expect(text.contains("oobCode=3Dabc"))
        #expect(text.contains("Content-Transfer-Encoding: base64\r\n\r\n" + Base64.encode(Array("<p>안녕하세요</p>".utf8))))
        #expect(!text.contains("\n\n"))  // every line ends in CRLF
        #expect(text.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 998 })
    }

    @Test func headersCannotBeInjected() {
        var message = Self.message
        message.subject = "Hi\r\nBcc: mallory@example.com"
        let text = String(decoding: message.rendered(date: Date()), as: UTF8.self)
        #expect(!text.contains("\r\nBcc:"))
        #expect(MailMessage.isValidAddress("alice@example.com"))
        #expect(!MailMessage.isValidAddress("alice@example.com\r\nRCPT TO:<x@y.z>"))
        #expect(!MailMessage.isValidAddress("no-at-sign"))
        #expect(!MailMessage.isValidAddress("a <b>@example.com"))
    }

    @Test func longSubjectsAreSplitIntoWordsOfAtMost75Characters() {
        var message = Self.message
        message.subject = String(repeating: "가", count: 60)
        let text = String(decoding: message.rendered(date: Date()), as: UTF8.self)
        let subject = text.components(separatedBy: "Subject: ")[1].components(separatedBy: "\r\nMessage-ID")[0]
        let words = subject.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") })
        let decoded = words.map { String(decoding: Base64.decode(String($0.dropFirst(10).dropLast(2))) ?? [], as: UTF8.self) }
        #expect(decoded.joined() == message.subject)
    }

    @Test(arguments: [
        (nil, "en"), ("ko-KR,ko;q=0.9,en;q=0.8", "ko"), ("en-US,en;q=0.9,ko;q=0.8", "en"), ("fr, ko;q=0.5", "ko"),
        ("de", "en"), ("ko;q=0", "en"), ("en;q=0.1, ko;q=0.2", "ko"), ("*", "en"),
        ("ja-JP,ja;q=0.9,en;q=0.8", "ja"), ("ko;q=0.4, ja;q=0.6", "ja"), ("ja;q=0, en;q=0.1", "en"),
    ] as [(String?, String)])
    func acceptLanguageChoosesTheMailLanguage(header: String?, language: String) {
        #expect(MailTemplates.language(forAcceptLanguage: header) == language)
    }

    /// `mail.defaultLanguage` answers when the header names no language the broker has (contract section 9).
    @Test func theFallbackIsTheDefaultLanguage() {
        #expect(MailTemplates.language(forAcceptLanguage: nil, fallback: "ja") == "ja")
        #expect(MailTemplates.language(forAcceptLanguage: "de, fr;q=0.5", fallback: "ko") == "ko")
        #expect(MailTemplates.language(forAcceptLanguage: "en;q=0.3, de", fallback: "ja") == "en")
    }

    /// Every mail exists in every language, with the link in both parts, the app's name and the address, and the HTML
    /// part escaped and tagged with its language; the Japanese ones are Japanese.
    @Test(arguments: MailTemplates.languages)
    func everyMailIsInEveryLanguage(_ language: String) throws {
        let templates = try MailTemplates(directory: nil)
        let link = "https://auth.example.com/auth/action?mode=x&oobCode=LINK-\(language)"
        var subjects: Set<String> = []
        for action in MailAction.allCases {
            let mail = templates.render(action, language: language, appName: "Demo <App>", email: "a@example.jp", link: link)
            #expect(!mail.subject.isEmpty && !mail.subject.contains("\n"), "\(action) \(language)")
            #expect(mail.subject.contains("Demo <App>"), "\(action) \(language)")
            subjects.insert(mail.subject)
            #expect(mail.text.contains(link) && mail.text.contains("a@example.jp"), "\(action) \(language)")
            #expect(mail.html.contains("mode=x&amp;oobCode=LINK-\(language)") && mail.html.contains("Demo &lt;App&gt;"))
            if language != "en" { #expect(mail.html.contains("<html lang=\"\(language)\">"), "\(action)") }
            if language == "ja" {
                #expect(mail.text.hasPrefix("こんにちは。"), "\(action)")
                #expect(mail.text.contains("無視"), "\(action)")
            }
        }
        #expect(subjects.count == MailAction.allCases.count)
    }

    @Test func templatesNameTheAppAndEscapeHTML() throws {
        let templates = try MailTemplates(directory: nil)
        let link = "https://auth.example.com/auth/action?mode=resetPassword&oobCode=abc"
        let mail = templates.render(.resetPassword, language: "ko", appName: "Demo <App>", email: "a@example.com", link: link)
        #expect(mail.subject == "Demo <App> 비밀번호 재설정")
        #expect(mail.text.contains(link) && mail.text.contains("무시"))
        #expect(mail.html.contains("Demo &lt;App&gt;") && mail.html.contains("mode=resetPassword&amp;oobCode=abc"))
        let english = templates.render(.verifyEmail, language: "xx", appName: "Demo", email: "a@example.com", link: link)
        #expect(english.subject == "Verify your email for Demo")
        #expect(english.text.contains("ignore this email"))
    }

    @Test func operatorFilesOverrideTemplatesAndAreChecked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("Welcome to {{appName}}\n".utf8).write(to: directory.appendingPathComponent("verifyEmail.en.subject"))
        try Data("Click {{link}} now".utf8).write(to: directory.appendingPathComponent("verifyEmail.en.txt"))
        let templates = try MailTemplates(directory: directory.path)
        let mail = templates.render(.verifyEmail, language: "en", appName: "Demo", email: "a@example.com", link: "L")
        #expect(mail.subject == "Welcome to Demo" && mail.text == "Click L now")
        #expect(mail.html.contains("Verify my email"))  // not overridden

        try Data("no link here".utf8).write(to: directory.appendingPathComponent("resetPassword.ko.html"))
        let error = #expect(throws: ConfigError.self) { try MailTemplates(directory: directory.path) }
        #expect(error?.field == "mail.templatesDir")
        #expect(throws: ConfigError.self) { try MailTemplates(directory: directory.appendingPathComponent("missing").path) }
    }

    static func config(_ mail: String) -> [UInt8] {
        Array(
            """
            {"projectId": "demo-project", "issuer": "http://127.0.0.1:8080", "providers": {}, "mail": \(mail)}
            """.utf8)
    }

    @Test func theMailSectionIsParsedWithDefaults() throws {
        let config = try BrokerConfig(
            parsing: Self.config(
                #"{"smtpUrl": "smtp://mailer@smtp.example.com:587", "from": "Demo <no-reply@example.com>", "allowedContinueUrls": ["https://app.example.com/done", "myapp://callback"]}"#),
            environment: ["BROKER_SMTP_PASSWORD": "hunter2"])
        let mail = try #require(config.mail)
        #expect(mail.appName == "demo-project" && mail.smtpPassword == "hunter2")
        #expect(mail.allowsContinueURL("https://app.example.com/done"))
        #expect(mail.allowsContinueURL("https://app.example.com/done/step?x=1"))
        #expect(mail.allowsContinueURL("myapp://callback/ok"))
        #expect(!mail.allowsContinueURL("https://app.example.com/donemore"))
        #expect(!mail.allowsContinueURL("https://app.example.com.evil.test/done"))
        #expect(!mail.allowsContinueURL("http://app.example.com/done"))
        #expect(!mail.allowsContinueURL("https://user@app.example.com/done"))
        #expect(!mail.allowsContinueURL("//app.example.com/done"))
        #expect(try BrokerConfig(parsing: Self.config("null"), environment: [:], sections: FirebaseModule.configSections).mail == nil)
        #expect(config.outbox == OutboxSettings())
        #expect(mail.defaultLanguage == "en")
        let japanese = try BrokerConfig(
            parsing: Self.config(#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "defaultLanguage": "ja"}"#),
            environment: [:], sections: FirebaseModule.configSections)
        #expect(japanese.mail?.defaultLanguage == "ja")
    }

    @Test(arguments: [
        (#"{"from": "a@example.com"}"#, "mail.smtpUrl"),
        (#"{"smtpUrl": "http://smtp.example.com", "from": "a@example.com"}"#, "mail.smtpUrl"),
        (#"{"smtpUrl": "smtp://u:secret@smtp.example.com", "from": "a@example.com"}"#, "mail.smtpUrl"),
        (#"{"smtpUrl": "smtps://smtp.example.com"}"#, "mail.from"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "not an address"}"#, "mail.from"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "allowedContinueUrls": ["/relative"]}"#, "mail.allowedContinueUrls[0]"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "smtpPassword": "x"}"#, "mail.smtpPassword"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "caFile": "/nonexistent/ca.pem"}"#, "mail.caFile"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "caFile": ""}"#, "mail.caFile"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "caFile": 7}"#, "mail.caFile"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "defaultLanguage": "fr"}"#, "mail.defaultLanguage"),
        (#"{"smtpUrl": "smtps://smtp.example.com", "from": "a@example.com", "defaultLanguage": "JA"}"#, "mail.defaultLanguage"),
    ])
    func aBadMailSectionIsRefusedNamingTheField(section: String, field: String) {
        let error = #expect(throws: ConfigError.self) { try BrokerConfig(parsing: Self.config(section), environment: [:], sections: FirebaseModule.configSections) }
        #expect(error?.field == field)
        #expect(error?.message.contains("secret") == false)
    }

    /// `mail.caFile` must hold PEM certificates that OpenSSL reads; checked when the config is read (at start
    /// and in `check-config`), without connecting anywhere.
    @Test func theCAFileMustHoldCertificates() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        func section(_ path: String) -> [UInt8] {
            Self.config(#"{"smtpUrl": "smtp://127.0.0.1:9", "from": "a@example.com", "caFile": "\#(path)"}"#)
        }
        let good = try BrokerConfig(parsing: section(certificates.caFile), environment: [:], sections: FirebaseModule.configSections)
        #expect(good.mail?.caFile == certificates.caFile)
        #expect(good.mail?.requiresTLS == false)

        let bundle = try Data(contentsOf: URL(fileURLWithPath: certificates.caFile))
            + (try Data(contentsOf: URL(fileURLWithPath: certificates.certificateFile)))
        #expect(try PEMCertificateBundle(pem: Array(bundle)).count == 2)

        let broken = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        let cases: [(name: String, contents: [UInt8])] = [
            ("key.pem", Array(try Data(contentsOf: URL(fileURLWithPath: certificates.keyFile)))),
            ("broken.pem", Array(broken.utf8)),
            ("second-broken.pem", Array(bundle) + Array(broken.utf8)),
            ("empty.pem", []),
        ]
        for (name, contents) in cases {
            let path = certificates.directory.appendingPathComponent(name).path
            try Data(contents).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: ConfigError.self, "\(name)") {
                try BrokerConfig(parsing: section(path), environment: [:], sections: FirebaseModule.configSections)
            }
            #expect(error?.field == "mail.caFile", "\(name)")
            // A private key handed over by mistake is not echoed back.
            #expect(error?.message.contains("PRIVATE KEY") == false)
        }
    }

    /// Credentials (a user name in the URL or a password) make TLS a requirement on `smtp://`.
    @Test(arguments: [
        ("smtp://127.0.0.1:25", [String: String](), false),
        ("smtp://mailer@smtp.example.com:587", [:], true),
        ("smtp://smtp.example.com:587", ["BROKER_SMTP_PASSWORD": "x"], true),
        ("smtp://smtp.example.com:587", ["BROKER_SMTP_PASSWORD": ""], false),
    ])
    func credentialsRequireTLS(url: String, environment: [String: String], required: Bool) throws {
        let config = try BrokerConfig(
            parsing: Self.config(#"{"smtpUrl": "\#(url)", "from": "a@example.com"}"#), environment: environment)
        #expect(config.mail?.requiresTLS == required)
    }
}
