import BrokerCore
import BrokerCrypto
import BrokerModel
import Foundation

/// The email flows' routes (contract section 9): the JSON endpoints and the `/auth/action` page the mails
/// link to. The page acts only on its POST, with a CSRF token (double-submit: a cookie and a form field),
/// so a mail scanner that follows the link consumes nothing; it runs no script and sends no referrer.
extension NativeSurface {
    /// Adds the email flows' routes, each handled by the method of that name below.
    func mountEmail(_ router: inout Router) {
        router.add("POST", "/v1/email/verify", requestVerification)
        router.add("POST", "/v1/password/reset", requestPasswordReset)
        router.add("POST", "/v1/oob/confirm", confirmCode)
        router.add("GET", "/auth/action", actionPage)
        router.add("POST", "/auth/action", actionForm)
    }

    /// `POST /v1/email/verify`: mails the signed-in user a link that verifies their address.
    func requestVerification(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let service = try NativeSurface.emailActions(services)
        let account = try await NativeSurface.authenticate(request, services)
        let body = request.body.isEmpty ? NativeBody(members: [:]) : try NativeBody(request)
        try body.allowOnly(["continueUrl"])
        try await service.requestVerification(
            for: account, continueURL: try body.optionalString("continueUrl"),
            acceptLanguage: request.headers["accept-language"], requestID: context.requestID)
        return HTTPResponse(status: 204)
    }

    /// `POST /v1/password/reset`: mails a reset link when the address has an account; 204 either way.
    func requestPasswordReset(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let service = try NativeSurface.emailActions(services)
        let body = try NativeBody(request)
        try body.allowOnly(["email", "continueUrl"])
        try await service.requestPasswordReset(
            email: try body.string("email"), continueURL: try body.optionalString("continueUrl"),
            acceptLanguage: request.headers["accept-language"], requestID: context.requestID)
        return HTTPResponse(status: 204)
    }

    /// `POST /v1/oob/confirm`: carries out a mailed code's action (a new password for a reset) for an app.
    func confirmCode(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let service = try NativeSurface.emailActions(services)
        let body = try NativeBody(request)
        try body.allowOnly(["oobCode", "newPassword"])
        let (confirmation, _) = try await service.confirm(
            code: try body.string("oobCode"), newPassword: try body.optionalString("newPassword"),
            requestID: context.requestID, acceptLanguage: request.headers["accept-language"])
        return .json(200, ["email": .string(confirmation.email), "action": .string(confirmation.action)])
    }

    /// `GET /auth/action`: the page a mail links to; it shows the form (with its CSRF cookie) and changes nothing.
    func actionPage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let service = try NativeSurface.emailActions(services)
        let text = pageText(request)
        guard let mode = request.query["mode"].flatMap(MailAction.init(rawValue:)),
            let code = request.query["oobCode"], !code.isEmpty, code.utf8.count <= 128
        else { return NativeSurface.page(400, text, title: text.invalidLink.title, message: text.invalidLink.message) }
        // An email sign-in link is for the app that asked for it (the compatibility listener's `signInWithEmailLink`).
        guard mode != .signIn else {
            return NativeSurface.page(200, text, title: text.signIn.title, message: text.signIn.message)
        }
        let csrf = Base64URL.encode(SecureRandom.bytes(24))
        // A verification of an account made with a password by someone who may not own the inbox asks for that
        // password, or for a new one instead (contract section 9). A bad code gets the plain form: its POST
        // says so.
        let guarded = try await NativeSurface.verificationIsGuarded(mode, code: code, service)
        let title = text.titles[mode] ?? ""
        var response =
            guarded
            ? NativeSurface.page(
                200, text, title: title, message: text.guarded,
                form: NativeSurface.guardedForms(code: code, csrf: csrf, text))
            : NativeSurface.page(200, text, title: title, form: NativeSurface.form(mode, code: code, csrf: csrf, text))
        let secure = services.config.issuer.lowercased().hasPrefix("https://") ? "; Secure" : ""
        let cookie = "broker_csrf=\(csrf); Path=/auth/action; HttpOnly; SameSite=Strict\(secure)"
        response.headers.append(("Set-Cookie", cookie))
        return response
    }

    /// `POST /auth/action`: the page's form, checked against its CSRF cookie, carries out the code's action.
    func actionForm(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let service = try NativeSurface.emailActions(services)
        let text = pageText(request)
        let form = request.formFields
        guard let sent = form["csrfToken"],
            let cookie = request.cookie("broker_csrf"),
            !sent.isEmpty, constantTimeEquals(Array(sent.utf8), Array(cookie.utf8))
        else {
            return NativeSurface.page(403, text, title: text.expiredForm.title, message: text.expiredForm.message)
        }
        guard let mode = form["mode"].flatMap(MailAction.init(rawValue:)), let code = form["oobCode"] else {
            return NativeSurface.page(400, text, title: text.invalidForm.title, message: text.invalidForm.message)
        }
        let title = text.titles[mode] ?? ""
        var proof = ActionCodeService.VerificationProof.unguardedCode
        let guarded = try await NativeSurface.verificationIsGuarded(mode, code: code, service)
        if guarded {
            if let chosen = form["newPassword"], !chosen.isEmpty {
                proof = .newPassword(chosen)
            } else if let password = form["password"], !password.isEmpty {
                proof = .password(password)
            } else {
                return NativeSurface.page(
                    400, text, title: title, message: text.guarded,
                    form: NativeSurface.guardedForms(code: code, csrf: cookie, text))
            }
        }
        do {
            let (confirmation, _) = try await service.confirm(
                code: code, newPassword: mode == .resetPassword ? (form["newPassword"] ?? "") : nil, proof: proof,
                requestID: context.requestID, acceptLanguage: request.headers["accept-language"])
            if let next = confirmation.continueURL, services.config.mail?.allowsContinueURL(next) == true {
                return HTTPResponse(
                    status: 303,
                    headers: [("Location", next), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")])
            }
            let done =
                switch (mode, confirmation.action) {
                case (.resetPassword, _): text.passwordChanged
                case (_, "PASSWORD_RESET"): text.passwordChangedAndVerified
                case (_, "VERIFY_AND_CHANGE_EMAIL"): text.emailChanged
                case (_, "RECOVER_EMAIL"): text.emailRestored
                default: text.emailVerified
                }
            return NativeSurface.page(200, text, title: text.doneTitle, message: done)
        } catch {
            let mapped = APIError.mapping(error)
            let retry =
                guarded
                ? NativeSurface.guardedForms(code: code, csrf: cookie, text)
                : NativeSurface.form(mode, code: code, csrf: cookie, text)
            if mapped?.code == "WEAK_PASSWORD" {
                return NativeSurface.page(
                    400, text, title: title, message: text.weakPassword(PasswordPolicy.minimumLength), form: retry)
            }
            if guarded, mapped?.code == "INVALID_LOGIN_CREDENTIALS" {
                return NativeSurface.page(
                    400, text, title: title, message: text.wrongPassword + " " + text.guarded, form: retry)
            }
            guard let mapped, mapped.status < 500 else { throw error }
            // A code that no longer works is said in the reader's language; anything else as the API says it.
            let message = mapped.code == "INVALID_OOB_CODE" ? text.unusableLink : mapped.message
            return NativeSurface.page(mapped.status, text, title: text.notDoneTitle, message: message)
        }
    }

    /// The page's words in the browser's language (`Accept-Language`), else `mail.defaultLanguage`.
    func pageText(_ request: HTTPRequest) -> ActionPageText {
        ActionPageText.choose(
            acceptLanguage: request.headers["accept-language"],
            defaultLanguage: services.config.mail?.defaultLanguage ?? MailTemplates.languages[0])
    }

    /// The email flows' service, or 501 `MAIL_NOT_CONFIGURED` without a `mail` section.
    static func emailActions(_ services: NativeSurface.Dependencies) throws -> EmailActionService {
        guard let service = services.emailActions else {
            throw APIError(501, "MAIL_NOT_CONFIGURED", "Mail is not configured on this broker.")
        }
        return service
    }

    /// The form of the page: hidden mode, code and CSRF token; a password field for a reset.
    static func form(_ mode: MailAction, code: String, csrf: String, _ text: ActionPageText) -> String {
        let hidden = [("mode", mode.rawValue), ("oobCode", code), ("csrfToken", csrf)]
            .map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(MailTemplates.htmlEscaped($0.1))\">" }.joined()
        let field =
            mode == .resetPassword
            ? "<p><label>\(text.newPasswordLabel) <input type=\"password\" name=\"newPassword\""
                + " autocomplete=\"new-password\" minlength=\"\(PasswordPolicy.minimumLength)\" required></label></p>"
            : ""
        let button = text.buttons[mode] ?? ""
        return "<form method=\"post\" action=\"/auth/action\">\(hidden)\(field)"
            + "<p><button type=\"submit\">\(button)</button></p></form>"
    }

    /// Whether the page verifies with `code` only with the account's password or a new one
    /// (``EmailActionService/verificationNeedsPassword(code:)``); false for another mode or a bad code (the
    /// confirmation then refuses it).
    static func verificationIsGuarded(
        _ mode: MailAction, code: String, _ service: EmailActionService
    ) async throws -> Bool {
        guard mode == .verifyEmail else { return false }
        do {
            return try await service.verificationNeedsPassword(code: code)
        } catch let error as ActionCodeError where error.code == .invalidCode {
            return false
        }
    }

    /// The two forms of a guarded verification: the account's password, or a new one instead.
    static func guardedForms(code: String, csrf: String, _ text: ActionPageText) -> String {
        let hidden = [("mode", MailAction.verifyEmail.rawValue), ("oobCode", code), ("csrfToken", csrf)]
            .map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(MailTemplates.htmlEscaped($0.1))\">" }.joined()
        let current =
            "<p><label>\(text.passwordLabel) <input type=\"password\" name=\"password\""
            + " autocomplete=\"current-password\" required></label></p>"
        let new =
            "<p><label>\(text.newPasswordLabel) <input type=\"password\" name=\"newPassword\""
            + " autocomplete=\"new-password\" minlength=\"\(PasswordPolicy.minimumLength)\" required></label></p>"
        func form(_ field: String, _ button: String) -> String {
            "<form method=\"post\" action=\"/auth/action\">\(hidden)\(field)"
                + "<p><button type=\"submit\">\(button)</button></p></form>"
        }
        return form(current, text.buttons[.verifyEmail] ?? "") + "<h2>\(text.notMine)</h2>"
            + form(new, text.setNewPassword)
    }

    /// A small HTML page in `text`'s language: no script, no outside resources, not cached, not framed, no referrer.
    static func page(
        _ status: Int, _ text: ActionPageText, title: String, message: String? = nil, form: String = ""
    ) -> HTTPResponse {
        let paragraph = message.map { "<p>\(MailTemplates.htmlEscaped($0))</p>" } ?? ""
        let html = """
            <!doctype html><html lang="\(text.language)"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>\(MailTemplates.htmlEscaped(title))</title></head>\
            <body><h1>\(MailTemplates.htmlEscaped(title))</h1>\(paragraph)\(form)</body></html>
            """
        return HTTPResponse(
            status: status,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                (
                    "Content-Security-Policy",
                    "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
                ),
                ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"),
            ],
            body: Array(html.utf8))
    }
}
