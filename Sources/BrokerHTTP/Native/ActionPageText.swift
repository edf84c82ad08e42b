import BrokerCore
import BrokerModel
/// The words of the `/auth/action` page in each language the mails have (English, Korean, Japanese), chosen as a
/// mail's language is: the browser's `Accept-Language`, else `mail.defaultLanguage`. The page's forms, fields and
/// headers are the same in every language; only what a person reads changes.
struct ActionPageText: Sendable {
    /// `en`, `ko` or `ja`: the page's `<html lang>`.
    let language: String
    let invalidLink: (title: String, message: String)
    let signIn: (title: String, message: String)
    let expiredForm: (title: String, message: String)
    let invalidForm: (title: String, message: String)
    let doneTitle: String
    let notDoneTitle: String
    let passwordChanged: String
    let passwordChangedAndVerified: String
    let emailChanged: String
    let emailRestored: String
    let emailVerified: String
    /// A password under `minimumLength` characters.
    let weakPassword: @Sendable (_ minimumLength: Int) -> String
    /// A code that is unknown, used or expired.
    let unusableLink: String
    let wrongPassword: String
    /// A verification that asks for the account's password, or a new one.
    let guarded: String
    let titles: [MailAction: String]
    let buttons: [MailAction: String]
    let passwordLabel: String
    let newPasswordLabel: String
    let notMine: String
    let setNewPassword: String

    /// The text for `acceptLanguage`, else `defaultLanguage`.
    static func choose(acceptLanguage: String?, defaultLanguage: String) -> ActionPageText {
        switch MailTemplates.language(forAcceptLanguage: acceptLanguage, fallback: defaultLanguage) {
        case "ko": korean
        case "ja": japanese
        default: english
        }
    }

    static let english = ActionPageText(
        language: "en",
        invalidLink: ("Invalid link", "This link is incomplete or malformed."),
        signIn: ("Sign in", "Open this link on the device and in the app where you asked to sign in."),
        expiredForm: ("Expired form", "Open the link from the mail again and resend the form."),
        invalidForm: ("Invalid form", "The form is incomplete."),
        doneTitle: "Done", notDoneTitle: "Not done",
        passwordChanged: "Your password has been changed.",
        passwordChangedAndVerified: "Your password has been changed and your email address verified.",
        emailChanged: "Your email address has been changed. Sign in again.",
        emailRestored: "Your email address has been restored and every session signed out. Choose a new password now.",
        emailVerified: "Your email address has been verified.",
        weakPassword: { "Choose a password of at least \($0) characters." },
        unusableLink: "This link has expired or has already been used. Ask for a new one in the app.",
        wrongPassword: "That is not this account's password.",
        guarded:
            "This account has a password: enter it to verify this address. If you did not create this account, choose a"
            + " new password instead; whoever made it is then signed out.",
        titles: [
            .resetPassword: "Choose a new password", .verifyAndChangeEmail: "Confirm your new email address",
            .recoverEmail: "Restore your email address", .verifyEmail: "Verify your email address",
            .signIn: "Verify your email address",
        ],
        buttons: [
            .resetPassword: "Change password", .verifyAndChangeEmail: "Change email", .recoverEmail: "Restore email",
            .verifyEmail: "Verify email", .signIn: "Verify email",
        ],
        passwordLabel: "Password", newPasswordLabel: "New password", notMine: "I did not create this account",
        setNewPassword: "Set a new password")

    static let korean = ActionPageText(
        language: "ko",
        invalidLink: ("잘못된 링크", "링크가 불완전하거나 올바르지 않습니다."),
        signIn: ("로그인", "로그인을 요청한 기기의 앱에서 이 링크를 열어 주세요."),
        expiredForm: ("만료된 양식", "메일의 링크를 다시 열고 양식을 다시 보내 주세요."),
        invalidForm: ("잘못된 양식", "양식이 완전하지 않습니다."),
        doneTitle: "완료", notDoneTitle: "처리되지 않음",
        passwordChanged: "비밀번호가 변경되었습니다.",
        passwordChangedAndVerified: "비밀번호가 변경되었고 이메일 주소가 인증되었습니다.",
        emailChanged: "이메일 주소가 변경되었습니다. 다시 로그인해 주세요.",
        emailRestored: "이메일 주소가 복원되었고 모든 기기에서 로그아웃되었습니다. 지금 새 비밀번호를 설정해 주세요.",
        emailVerified: "이메일 주소가 인증되었습니다.",
        weakPassword: { "비밀번호는 \($0)자 이상으로 정해 주세요." },
        unusableLink: "이 링크는 만료되었거나 이미 사용되었습니다. 앱에서 새 링크를 요청해 주세요.",
        wrongPassword: "이 계정의 비밀번호가 아닙니다.",
        guarded:
            "이 계정에는 비밀번호가 있습니다. 이 주소를 인증하려면 비밀번호를 입력해 주세요. 이 계정을 만들지 않으셨다면"
            + " 대신 새 비밀번호를 설정해 주세요. 계정을 만든 사람은 로그아웃됩니다.",
        titles: [
            .resetPassword: "새 비밀번호 설정", .verifyAndChangeEmail: "새 이메일 주소 확인",
            .recoverEmail: "이메일 주소 되돌리기", .verifyEmail: "이메일 주소 인증", .signIn: "이메일 주소 인증",
        ],
        buttons: [
            .resetPassword: "비밀번호 변경", .verifyAndChangeEmail: "이메일 변경", .recoverEmail: "이메일 되돌리기",
            .verifyEmail: "이메일 인증", .signIn: "이메일 인증",
        ],
        passwordLabel: "비밀번호", newPasswordLabel: "새 비밀번호", notMine: "이 계정을 만들지 않았습니다",
        setNewPassword: "새 비밀번호 설정")

    static let japanese = ActionPageText(
        language: "ja",
        invalidLink: ("無効なリンク", "このリンクは不完全か、形式が正しくありません。"),
        signIn: ("ログイン", "ログインを求めた端末のアプリで、このリンクを開いてください。"),
        expiredForm: ("期限切れのフォーム", "メールのリンクをもう一度開いて、フォームを送信し直してください。"),
        invalidForm: ("無効なフォーム", "フォームの内容が不足しています。"),
        doneTitle: "完了", notDoneTitle: "完了できませんでした",
        passwordChanged: "パスワードを変更しました。",
        passwordChangedAndVerified: "パスワードを変更し、メールアドレスを確認しました。",
        emailChanged: "メールアドレスを変更しました。もう一度ログインしてください。",
        emailRestored: "メールアドレスを元に戻し、すべての端末からログアウトしました。新しいパスワードを設定してください。",
        emailVerified: "メールアドレスを確認しました。",
        weakPassword: { "パスワードは\($0)文字以上にしてください。" },
        unusableLink: "このリンクは有効期限が切れたか、すでに使用されています。アプリから新しいリンクを依頼してください。",
        wrongPassword: "このアカウントのパスワードではありません。",
        guarded:
            "このアカウントにはパスワードが設定されています。このアドレスを確認するには、パスワードを入力してください。"
            + "このアカウントを作成していない場合は、代わりに新しいパスワードを設定してください。作成した人はログアウトされます。",
        titles: [
            .resetPassword: "新しいパスワードの設定", .verifyAndChangeEmail: "新しいメールアドレスの確認",
            .recoverEmail: "メールアドレスを元に戻す", .verifyEmail: "メールアドレスの確認",
            .signIn: "メールアドレスの確認",
        ],
        buttons: [
            .resetPassword: "パスワードを変更", .verifyAndChangeEmail: "メールアドレスを変更",
            .recoverEmail: "メールアドレスを元に戻す", .verifyEmail: "メールアドレスを確認", .signIn: "メールアドレスを確認",
        ],
        passwordLabel: "パスワード", newPasswordLabel: "新しいパスワード", notMine: "このアカウントを作成していません",
        setNewPassword: "新しいパスワードを設定")
}
