import BrokerCrypto
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
        guard let mode = request.query["mode"].flatMap(MailAction.init(rawValue:)),
            let code = request.query["oobCode"], !code.isEmpty, code.utf8.count <= 128
        else { return NativeSurface.page(400, title: "Invalid link", message: "This link is incomplete or malformed.") }
        // An email sign-in link is for the app that asked for it (the compatibility listener's `signInWithEmailLink`).
        guard mode != .signIn else {
            return NativeSurface.page(
                200, title: "Sign in",
                message: "Open this link on the device and in the app where you asked to sign in.")
        }
        let csrf = Base64URL.encode(SecureRandom.bytes(24))
        // A verification of an account made with a password by someone who may not own the inbox asks for that
        // password, or for a new one instead (contract section 9). A bad code gets the plain form: its POST
        // says so.
        let guarded = try await NativeSurface.verificationIsGuarded(mode, code: code, service)
        var response =
            guarded
            ? NativeSurface.page(
                200, title: NativeSurface.title(mode), message: NativeSurface.guardedMessage,
                form: NativeSurface.guardedForms(code: code, csrf: csrf))
            : NativeSurface.page(
                200, title: NativeSurface.title(mode), form: NativeSurface.form(mode, code: code, csrf: csrf))
        let secure = services.config.issuer.lowercased().hasPrefix("https://") ? "; Secure" : ""
        let cookie = "broker_csrf=\(csrf); Path=/auth/action; HttpOnly; SameSite=Strict\(secure)"
        response.headers.append(("Set-Cookie", cookie))
        return response
    }

    /// `POST /auth/action`: the page's form, checked against its CSRF cookie, carries out the code's action.
    func actionForm(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let service = try NativeSurface.emailActions(services)
        let form = request.formFields
        guard let sent = form["csrfToken"],
            let cookie = NativeSurface.cookie("broker_csrf", in: request.headers["cookie"]),
            !sent.isEmpty, constantTimeEquals(Array(sent.utf8), Array(cookie.utf8))
        else {
            return NativeSurface.page(
                403, title: "Expired form", message: "Open the link from the mail again and resend the form.")
        }
        guard let mode = form["mode"].flatMap(MailAction.init(rawValue:)), let code = form["oobCode"] else {
            return NativeSurface.page(400, title: "Invalid form", message: "The form is incomplete.")
        }
        var proof = ActionCodeService.VerificationProof.unguardedCode
        let guarded = try await NativeSurface.verificationIsGuarded(mode, code: code, service)
        if guarded {
            if let chosen = form["newPassword"], !chosen.isEmpty {
                proof = .newPassword(chosen)
            } else if let password = form["password"], !password.isEmpty {
                proof = .password(password)
            } else {
                return NativeSurface.page(
                    400, title: NativeSurface.title(mode), message: NativeSurface.guardedMessage,
                    form: NativeSurface.guardedForms(code: code, csrf: cookie))
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
                case (.resetPassword, _): "Your password has been changed."
                case (_, "PASSWORD_RESET"): "Your password has been changed and your email address verified."
                case (_, "VERIFY_AND_CHANGE_EMAIL"): "Your email address has been changed. Sign in again."
                case (_, "RECOVER_EMAIL"):
                    "Your email address has been restored and every session signed out. Choose a new password now."
                default: "Your email address has been verified."
                }
            return NativeSurface.page(200, title: "Done", message: done)
        } catch {
            let mapped = APIError.mapping(error)
            let retry =
                guarded
                ? NativeSurface.guardedForms(code: code, csrf: cookie)
                : NativeSurface.form(mode, code: code, csrf: cookie)
            if mapped?.code == "WEAK_PASSWORD" {
                return NativeSurface.page(
                    400, title: NativeSurface.title(mode),
                    message: "Choose a password of at least \(PasswordPolicy.minimumLength) characters.", form: retry)
            }
            if guarded, mapped?.code == "INVALID_LOGIN_CREDENTIALS" {
                return NativeSurface.page(
                    400, title: NativeSurface.title(mode),
                    message: "That is not this account's password. " + NativeSurface.guardedMessage, form: retry)
            }
            guard let mapped, mapped.status < 500 else { throw error }
            return NativeSurface.page(mapped.status, title: "Not done", message: mapped.message)
        }
    }

    /// The email flows' service, or 501 `MAIL_NOT_CONFIGURED` without a `mail` section.
    static func emailActions(_ services: NativeSurface.Dependencies) throws -> EmailActionService {
        guard let service = services.emailActions else {
            throw APIError(501, "MAIL_NOT_CONFIGURED", "Mail is not configured on this broker.")
        }
        return service
    }

    static func title(_ mode: MailAction) -> String {
        switch mode {
        case .resetPassword: "Choose a new password"
        case .verifyAndChangeEmail: "Confirm your new email address"
        case .recoverEmail: "Restore your email address"
        case .verifyEmail, .signIn: "Verify your email address"
        }
    }

    /// The form of the page: hidden mode, code and CSRF token; a password field for a reset.
    static func form(_ mode: MailAction, code: String, csrf: String) -> String {
        let hidden = [("mode", mode.rawValue), ("oobCode", code), ("csrfToken", csrf)]
            .map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(MailTemplates.htmlEscaped($0.1))\">" }.joined()
        let field =
            mode == .resetPassword
            ? "<p><label>New password <input type=\"password\" name=\"newPassword\" autocomplete=\"new-password\""
                + " minlength=\"\(PasswordPolicy.minimumLength)\" required></label></p>"
            : ""
        let button =
            switch mode {
            case .resetPassword: "Change password"
            case .verifyAndChangeEmail: "Change email"
            case .recoverEmail: "Restore email"
            case .verifyEmail, .signIn: "Verify email"
            }
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

    /// What the page says when it verifies an address for an account that has a password and never had its email
    /// verified.
    static let guardedMessage =
        "This account has a password: enter it to verify this address. If you did not create this account, choose a"
        + " new password instead; whoever made it is then signed out."

    /// The two forms of a guarded verification: the account's password, or a new one instead.
    static func guardedForms(code: String, csrf: String) -> String {
        let hidden = [("mode", MailAction.verifyEmail.rawValue), ("oobCode", code), ("csrfToken", csrf)]
            .map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(MailTemplates.htmlEscaped($0.1))\">" }.joined()
        let current =
            "<p><label>Password <input type=\"password\" name=\"password\" autocomplete=\"current-password\""
            + " required></label></p>"
        let new =
            "<p><label>New password <input type=\"password\" name=\"newPassword\" autocomplete=\"new-password\""
            + " minlength=\"\(PasswordPolicy.minimumLength)\" required></label></p>"
        func form(_ field: String, _ button: String) -> String {
            "<form method=\"post\" action=\"/auth/action\">\(hidden)\(field)"
                + "<p><button type=\"submit\">\(button)</button></p></form>"
        }
        return form(current, "Verify email") + "<h2>I did not create this account</h2>"
            + form(new, "Set a new password")
    }

    /// A small HTML page: no script, no outside resources, not cached, not framed, no referrer.
    static func page(_ status: Int, title: String, message: String? = nil, form: String = "") -> HTTPResponse {
        let paragraph = message.map { "<p>\(MailTemplates.htmlEscaped($0))</p>" } ?? ""
        let html = """
            <!doctype html><html><head><meta charset="utf-8">\
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

    /// The value of cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == name { return parts[1] }
        }
        return nil
    }
}
