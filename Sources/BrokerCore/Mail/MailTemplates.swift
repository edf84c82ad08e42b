public import BrokerModel
import Foundation

/// The verification, reset, sign-in and email-change mails in English, Korean and Japanese, chosen by
/// `Accept-Language` (else `mail.defaultLanguage`), each part overridable by a file in the operator's
/// `mail.templatesDir`.
///
/// A file is named `<action>.<language>.<part>`: action `verifyEmail`, `resetPassword`, `signIn`,
/// `verifyAndChangeEmail` (to the new address of an email change) or `recoverEmail` (to the old one), language `en`,
/// `ko` or `ja`, part `subject` (one line), `txt` or `html`. Placeholders: `{{appName}}`, `{{email}}`, `{{link}}`
/// (values are HTML-escaped in the HTML part). The text and HTML parts must contain `{{link}}`.
public struct MailTemplates: Sendable {
    /// The languages the broker has mails for; the first is the fallback.
    public static let languages = ["en", "ko", "ja"]

    /// (action.language.part) -> template text.
    private var parts: [String: String]

    /// The built-in templates, with any overrides found in `directory` (checked now, at start).
    public init(directory: String?) throws {
        parts = Self.builtIn
        guard let directory else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigError(field: "mail.templatesDir", "is not a readable directory: \(directory)")
        }
        for action in MailAction.allCases {
            for language in Self.languages {
                for part in ["subject", "txt", "html"] {
                    let name = "\(action.rawValue).\(language).\(part)"
                    let path = (directory as NSString).appendingPathComponent(name)
                    guard let data = FileManager.default.contents(atPath: path) else { continue }
                    guard data.count <= 256 * 1024, let text = String(data: data, encoding: .utf8) else {
                        throw ConfigError(field: "mail.templatesDir", "\(name) must be UTF-8 text of at most 256 KiB")
                    }
                    if part == "subject" {
                        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
                        guard !line.isEmpty, !line.contains("\n"), !line.contains("\r") else {
                            throw ConfigError(field: "mail.templatesDir", "\(name) must be one non-empty line")
                        }
                        parts[name] = line
                    } else {
                        guard text.contains("{{link}}") else {
                            throw ConfigError(field: "mail.templatesDir", "\(name) must contain {{link}}")
                        }
                        parts[name] = text
                    }
                }
            }
        }
    }

    /// The mail for `action` in `language` (an unknown one falls back to English).
    public func render(_ action: MailAction, language: String, appName: String, email: String, link: String)
        -> (subject: String, text: String, html: String)
    {
        let language = Self.languages.contains(language) ? language : Self.languages[0]
        func part(_ name: String) -> String { parts["\(action.rawValue).\(language).\(name)"] ?? "" }
        let plain = ["appName": appName, "email": email, "link": link]
        let escaped = plain.mapValues(Self.htmlEscaped)
        return (Self.fill(part("subject"), plain), Self.fill(part("txt"), plain), Self.fill(part("html"), escaped))
    }

    /// The best supported language for an `Accept-Language` header (by q-value, then order); `fallback`
    /// (`mail.defaultLanguage`, English unless set) when none matches or the header is absent.
    public static func language(forAcceptLanguage header: String?, fallback: String = languages[0]) -> String {
        guard let header, header.utf8.count <= 1024 else { return fallback }
        var best: (language: String, quality: Double)?
        for item in header.split(separator: ",").prefix(32) {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = fields.first?.lowercased(), !tag.isEmpty else { continue }
            var quality = 1.0
            for parameter in fields.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)).map { min(1, max(0, $0)) } ?? 0
            }
            let primary = String(tag.split(separator: "-").first ?? "")
            guard quality > 0, languages.contains(primary) else { continue }
            if quality > (best?.quality ?? 0) { best = (primary, quality) }
        }
        return best?.language ?? fallback
    }

    private static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = template
        for (name, value) in values { out = out.replacingOccurrences(of: "{{\(name)}}", with: value) }
        return out
    }

    package static func htmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    private static let builtIn: [String: String] = [
        "verifyEmail.en.subject": "Verify your email for {{appName}}",
        "verifyEmail.en.txt": """
            Hello,

            Follow this link to verify your email address ({{email}}) for {{appName}}:

            {{link}}

            The link works once and expires in an hour. If you didn't ask to verify this address, you can ignore this email.

            — {{appName}}
            """,
        "verifyEmail.en.html": """
            <!doctype html><html><body><p>Hello,</p><p>Follow this link to verify your email address ({{email}}) for {{appName}}:</p><p><a href="{{link}}">Verify my email</a></p><p>The link works once and expires in an hour. If you didn't ask to verify this address, you can ignore this email.</p><p>— {{appName}}</p></body></html>
            """,
        "verifyEmail.ko.subject": "{{appName}} 이메일 주소를 인증해 주세요",
        "verifyEmail.ko.txt": """
            안녕하세요.

            아래 링크를 눌러 {{appName}}에서 사용하는 이메일 주소({{email}})를 인증해 주세요.

            {{link}}

            이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다.

            — {{appName}}
            """,
        "verifyEmail.ko.html": """
            <!doctype html><html lang="ko"><body><p>안녕하세요.</p><p>아래 링크를 눌러 {{appName}}에서 사용하는 이메일 주소({{email}})를 인증해 주세요.</p><p><a href="{{link}}">이메일 인증하기</a></p><p>이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다.</p><p>— {{appName}}</p></body></html>
            """,
        "resetPassword.en.subject": "Reset your password for {{appName}}",
        "resetPassword.en.txt": """
            Hello,

            Follow this link to choose a new password for your {{appName}} account ({{email}}):

            {{link}}

            The link works once and expires in an hour. If you didn't ask to reset your password, you can ignore this email: your password stays as it is.

            — {{appName}}
            """,
        "resetPassword.en.html": """
            <!doctype html><html><body><p>Hello,</p><p>Follow this link to choose a new password for your {{appName}} account ({{email}}):</p><p><a href="{{link}}">Reset my password</a></p><p>The link works once and expires in an hour. If you didn't ask to reset your password, you can ignore this email: your password stays as it is.</p><p>— {{appName}}</p></body></html>
            """,
        "resetPassword.ko.subject": "{{appName}} 비밀번호 재설정",
        "resetPassword.ko.txt": """
            안녕하세요.

            아래 링크를 눌러 {{appName}} 계정({{email}})의 새 비밀번호를 설정해 주세요.

            {{link}}

            이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 되며, 비밀번호는 바뀌지 않습니다.

            — {{appName}}
            """,
        "resetPassword.ko.html": """
            <!doctype html><html lang="ko"><body><p>안녕하세요.</p><p>아래 링크를 눌러 {{appName}} 계정({{email}})의 새 비밀번호를 설정해 주세요.</p><p><a href="{{link}}">비밀번호 재설정하기</a></p><p>이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 되며, 비밀번호는 바뀌지 않습니다.</p><p>— {{appName}}</p></body></html>
            """,
        "signIn.en.subject": "Sign in to {{appName}}",
        "signIn.en.txt": """
            Hello,

            Follow this link to sign in to {{appName}} as {{email}}:

            {{link}}

            The link works once and expires in an hour. If you didn't ask to sign in, you can ignore this email.

            — {{appName}}
            """,
        "signIn.en.html": """
            <!doctype html><html><body><p>Hello,</p><p>Follow this link to sign in to {{appName}} as {{email}}:</p><p><a href="{{link}}">Sign in</a></p><p>The link works once and expires in an hour. If you didn't ask to sign in, you can ignore this email.</p><p>— {{appName}}</p></body></html>
            """,
        "signIn.ko.subject": "{{appName}} 로그인 링크",
        "signIn.ko.txt": """
            안녕하세요.

            아래 링크를 눌러 {{email}} 계정으로 {{appName}}에 로그인하세요.

            {{link}}

            이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다.

            — {{appName}}
            """,
        "signIn.ko.html": """
            <!doctype html><html lang="ko"><body><p>안녕하세요.</p><p>아래 링크를 눌러 {{email}} 계정으로 {{appName}}에 로그인하세요.</p><p><a href="{{link}}">로그인하기</a></p><p>이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다.</p><p>— {{appName}}</p></body></html>
            """,
        "verifyAndChangeEmail.en.subject": "Confirm your new email for {{appName}}",
        "verifyAndChangeEmail.en.txt": """
            Hello,

            Follow this link to make {{email}} the email address of your {{appName}} account:

            {{link}}

            Your address changes only when you follow it. The link works once and expires in an hour. If you didn't ask to change your email address, you can ignore this email.

            — {{appName}}
            """,
        "verifyAndChangeEmail.en.html": """
            <!doctype html><html><body><p>Hello,</p><p>Follow this link to make {{email}} the email address of your {{appName}} account:</p><p><a href="{{link}}">Change my email</a></p><p>Your address changes only when you follow it. The link works once and expires in an hour. If you didn't ask to change your email address, you can ignore this email.</p><p>— {{appName}}</p></body></html>
            """,
        "verifyAndChangeEmail.ko.subject": "{{appName}} 새 이메일 주소 확인",
        "verifyAndChangeEmail.ko.txt": """
            안녕하세요.

            아래 링크를 누르면 {{email}} 주소가 {{appName}} 계정의 이메일 주소가 됩니다.

            {{link}}

            링크를 누르기 전에는 주소가 바뀌지 않습니다. 이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다.

            — {{appName}}
            """,
        "verifyAndChangeEmail.ko.html": """
            <!doctype html><html lang="ko"><body><p>안녕하세요.</p><p>아래 링크를 누르면 {{email}} 주소가 {{appName}} 계정의 이메일 주소가 됩니다.</p><p><a href="{{link}}">이메일 주소 변경하기</a></p><p>링크를 누르기 전에는 주소가 바뀌지 않습니다. 이 링크는 한 번만 사용할 수 있으며 1시간 후에 만료됩니다. 요청하지 않으셨다면 이 메일을 무시하셔도 됩니다.</p><p>— {{appName}}</p></body></html>
            """,
        "recoverEmail.en.subject": "Your email for {{appName}} was changed",
        "recoverEmail.en.txt": """
            Hello,

            The email address of your {{appName}} account is no longer {{email}}: it was changed to another address.

            If you made this change, you can ignore this email. If you didn't, follow this link within 72 hours to put {{email}} back and sign everyone out of the account, then choose a new password:

            {{link}}

            — {{appName}}
            """,
        "recoverEmail.en.html": """
            <!doctype html><html><body><p>Hello,</p><p>The email address of your {{appName}} account is no longer {{email}}: it was changed to another address.</p><p>If you made this change, you can ignore this email. If you didn't, follow this link within 72 hours to put {{email}} back and sign everyone out of the account, then choose a new password:</p><p><a href="{{link}}">Restore my email</a></p><p>— {{appName}}</p></body></html>
            """,
        "recoverEmail.ko.subject": "{{appName}} 이메일 주소가 변경되었습니다",
        "recoverEmail.ko.txt": """
            안녕하세요.

            {{appName}} 계정의 이메일 주소가 {{email}}에서 다른 주소로 변경되었습니다.

            직접 변경하셨다면 이 메일을 무시하셔도 됩니다. 변경하지 않으셨다면 72시간 안에 아래 링크를 눌러 {{email}} 주소를 되돌리고 모든 기기에서 로그아웃한 뒤 새 비밀번호를 설정해 주세요.

            {{link}}

            — {{appName}}
            """,
        "recoverEmail.ko.html": """
            <!doctype html><html lang="ko"><body><p>안녕하세요.</p><p>{{appName}} 계정의 이메일 주소가 {{email}}에서 다른 주소로 변경되었습니다.</p><p>직접 변경하셨다면 이 메일을 무시하셔도 됩니다. 변경하지 않으셨다면 72시간 안에 아래 링크를 눌러 {{email}} 주소를 되돌리고 모든 기기에서 로그아웃한 뒤 새 비밀번호를 설정해 주세요.</p><p><a href="{{link}}">이메일 주소 되돌리기</a></p><p>— {{appName}}</p></body></html>
            """,
        "verifyEmail.ja.subject": "{{appName}} のメールアドレスを確認してください",
        "verifyEmail.ja.txt": """
            こんにちは。

            {{appName}} でご利用のメールアドレス（{{email}}）を確認するには、次のリンクを開いてください。

            {{link}}

            このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。

            — {{appName}}
            """,
        "verifyEmail.ja.html": """
            <!doctype html><html lang="ja"><body><p>こんにちは。</p><p>{{appName}} でご利用のメールアドレス（{{email}}）を確認するには、次のリンクを開いてください。</p><p><a href="{{link}}">メールアドレスを確認する</a></p><p>このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。</p><p>— {{appName}}</p></body></html>
            """,
        "resetPassword.ja.subject": "{{appName}} のパスワード再設定",
        "resetPassword.ja.txt": """
            こんにちは。

            {{appName}} アカウント（{{email}}）の新しいパスワードを設定するには、次のリンクを開いてください。

            {{link}}

            このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。パスワードは変更されません。

            — {{appName}}
            """,
        "resetPassword.ja.html": """
            <!doctype html><html lang="ja"><body><p>こんにちは。</p><p>{{appName}} アカウント（{{email}}）の新しいパスワードを設定するには、次のリンクを開いてください。</p><p><a href="{{link}}">パスワードを再設定する</a></p><p>このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。パスワードは変更されません。</p><p>— {{appName}}</p></body></html>
            """,
        "signIn.ja.subject": "{{appName}} のログインリンク",
        "signIn.ja.txt": """
            こんにちは。

            {{email}} として {{appName}} にログインするには、次のリンクを開いてください。

            {{link}}

            このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。

            — {{appName}}
            """,
        "signIn.ja.html": """
            <!doctype html><html lang="ja"><body><p>こんにちは。</p><p>{{email}} として {{appName}} にログインするには、次のリンクを開いてください。</p><p><a href="{{link}}">ログインする</a></p><p>このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。</p><p>— {{appName}}</p></body></html>
            """,
        "verifyAndChangeEmail.ja.subject": "{{appName}} の新しいメールアドレスの確認",
        "verifyAndChangeEmail.ja.txt": """
            こんにちは。

            次のリンクを開くと、{{email}} が {{appName}} アカウントのメールアドレスになります。

            {{link}}

            リンクを開くまでアドレスは変更されません。このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。

            — {{appName}}
            """,
        "verifyAndChangeEmail.ja.html": """
            <!doctype html><html lang="ja"><body><p>こんにちは。</p><p>次のリンクを開くと、{{email}} が {{appName}} アカウントのメールアドレスになります。</p><p><a href="{{link}}">メールアドレスを変更する</a></p><p>リンクを開くまでアドレスは変更されません。このリンクは一度だけ使用でき、1時間で有効期限が切れます。お心当たりのない場合は、このメールを無視してください。</p><p>— {{appName}}</p></body></html>
            """,
        "recoverEmail.ja.subject": "{{appName}} のメールアドレスが変更されました",
        "recoverEmail.ja.txt": """
            こんにちは。

            {{appName}} アカウントのメールアドレスが {{email}} から別のアドレスに変更されました。

            ご自身で変更された場合は、このメールを無視してください。お心当たりのない場合は、72時間以内に次のリンクを開いて {{email}} に戻し、すべての端末からログアウトしたうえで、新しいパスワードを設定してください。

            {{link}}

            — {{appName}}
            """,
        "recoverEmail.ja.html": """
            <!doctype html><html lang="ja"><body><p>こんにちは。</p><p>{{appName}} アカウントのメールアドレスが {{email}} から別のアドレスに変更されました。</p><p>ご自身で変更された場合は、このメールを無視してください。お心当たりのない場合は、72時間以内に次のリンクを開いて {{email}} に戻し、すべての端末からログアウトしたうえで、新しいパスワードを設定してください。</p><p><a href="{{link}}">メールアドレスを元に戻す</a></p><p>— {{appName}}</p></body></html>
            """,
    ]
}
