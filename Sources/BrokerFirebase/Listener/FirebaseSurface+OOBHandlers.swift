import BrokerCore
import BrokerHTTP
public import BrokerModel
import Foundation

/// The handlers of the out-of-band flows (contract sections 9 and 11), in Firebase's wire format: they decode
/// the request, call ``EmailActionService`` (mail through the outbox), ``ActionCodeService`` (links, look-ups,
/// confirmations), ``SignInFlow`` (the email-link sign-in) or ``FirebaseSessionCookies``, and answer as Identity
/// Toolkit does.
extension FirebaseSurface {
    /// The request types `sendOobCode` serves, as Firebase names them.
    static let oobRequestTypes: [String: MailAction] = [
        "PASSWORD_RESET": .resetPassword, "VERIFY_EMAIL": .verifyEmail, "EMAIL_SIGNIN": .signIn,
        "VERIFY_AND_CHANGE_EMAIL": .verifyAndChangeEmail,
    ]

    /// Firebase's `requestType` of an action.
    static func requestType(_ action: MailAction) -> String {
        switch action {
        case .resetPassword: "PASSWORD_RESET"
        case .verifyEmail: "VERIFY_EMAIL"
        case .signIn: "EMAIL_SIGNIN"
        case .verifyAndChangeEmail: "VERIFY_AND_CHANGE_EMAIL"
        case .recoverEmail: "RECOVER_EMAIL"
        }
    }

    /// The action codes (links, look-ups, confirmations, email sign-in).
    var actionCodes: ActionCodeService { services.actionCodes }

    /// The mail service, or `OPERATION_NOT_ALLOWED` without a `mail` section (Firebase's answer for a flow the
    /// project has not enabled; the native API's is 501 `MAIL_NOT_CONFIGURED`).
    var mailActions: EmailActionService {
        get throws {
            guard let service = services.emailActions else {
                throw FirebaseError.operationNotAllowed("Mail is not configured on this broker (the mail section).")
            }
            return service
        }
    }

    /// Firebase's detail for a `linkDomain` it does not host.
    static let hostingLinkDomainDetail =
        "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current "
        + "project. This cannot be a default hosting domain (web.app or firebaseapp.com)."

    /// `accounts:sendOobCode` (`getOobConfirmationCode`). A client call mails the link through the outbox
    /// (`continueUrl` must be allowed by `mail.allowedContinueUrls`); an admin call with `returnOobLink`
    /// answers the link and mails nothing, and checks only that `continueUrl` is an absolute URL. A `linkDomain`
    /// is `INVALID_HOSTING_LINK_DOMAIN`.
    func sendOobCode(_ call: FirebaseCall, admin: Bool) async throws -> HTTPResponse {
        let body = call.body
        guard let typeName = try body.optionalString("requestType"), !typeName.isEmpty else {
            throw FirebaseError("MISSING_REQ_TYPE")
        }
        guard let action = Self.oobRequestTypes[typeName] else {
            throw FirebaseError("INVALID_REQ_TYPE", "\(NativeBody.printable(typeName)) is not supported by this broker")
        }
        let continueURL = try body.optionalString("continueUrl").flatMap { $0.isEmpty ? nil : $0 }
        if let continueURL {
            guard continueURL.utf8.count <= 2048, MailSettings.continuePrefix(continueURL) != nil else {
                throw FirebaseError("INVALID_CONTINUE_URI", "expected an absolute URI with valid scheme and host")
            }
        }
        _ = try body.flag("canHandleCodeInApp")  // the app opens the link itself: the link is the same
        // The broker hosts no Firebase Hosting domain, so any `linkDomain` is one the project does not own: refused
        // as Firebase refuses such a domain, before anything is stored or mailed.
        if let domain = try body.optionalString("linkDomain"), !domain.isEmpty {
            throw FirebaseError("INVALID_HOSTING_LINK_DOMAIN", Self.hostingLinkDomainDetail)
        }
        if try body.flag("returnOobLink") && !call.isAdmin { throw FirebaseError("INSUFFICIENT_PERMISSION") }
        if admin { return try await adminOobLink(call, action, continueURL: continueURL) }

        let mail = try mailActions
        if let continueURL, services.config.mail?.allowsContinueURL(continueURL) != true {
            throw FirebaseError("UNAUTHORIZED_DOMAIN", "Domain not allowlisted by project")
        }
        let language = call.request.headers["x-firebase-locale"] ?? call.request.headers["accept-language"]
        var email: String
        do {
            switch action {
            case .verifyEmail:
                let user = try await idTokens.verify(try body.string("idToken", missing: "INVALID_ID_TOKEN"))
                guard let address = user.account.email else { throw FirebaseError("MISSING_EMAIL") }
                email = address
                try await mail.requestVerification(
                    for: user.account, continueURL: continueURL, acceptLanguage: language, requestID: call.requestID)
            case .resetPassword:
                email = try Self.email(body)
                try await mail.requestPasswordReset(
                    email: email, continueURL: continueURL, acceptLanguage: language, requestID: call.requestID,
                    requiringAccount: !settings.emailEnumerationProtection)
            case .signIn:
                email = try Self.email(body)
                try await mail.requestEmailSignIn(
                    email: email, continueURL: continueURL, acceptLanguage: language, requestID: call.requestID)
            case .verifyAndChangeEmail:
                // `verifyBeforeUpdateEmail`: the new address gets the link (contract section 9).
                let newEmail = try body.string("newEmail", missing: "MISSING_NEW_EMAIL")
                let user = try await authenticated(call)
                email = user.account.email ?? ""
                try await services.selfService.requestEmailChange(
                    user.signedIn, to: newEmail,
                    continueURL: continueURL, acceptLanguage: language, using: mail, requestID: call.requestID)
            case .recoverEmail:
                throw FirebaseError("INVALID_REQ_TYPE")
            }
        } catch let error as AccountError where error.code == .tooManyAttempts {
            var mapped = FirebaseError(
                "TOO_MANY_ATTEMPTS_TRY_LATER", "Too many emails to this address; try again later.")
            mapped.headers["Retry-After"] = String(error.retryAfter ?? 3600)
            throw mapped
        }
        return .json(200, ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)])
    }

    /// An admin's `sendOobCode` with `returnOobLink`: the code and its link, no mail. A reset link for an
    /// address no account holds is `EMAIL_NOT_FOUND`, a verification link `USER_NOT_FOUND` (Firebase's answers).
    private func adminOobLink(
        _ call: FirebaseCall, _ action: MailAction, continueURL: String?
    ) async throws
        -> HTTPResponse
    {
        var email = try call.body.optionalString("email").flatMap { $0.isEmpty ? nil : $0 }
        if email == nil, action == .verifyEmail, let token = try call.body.optionalString("idToken") {
            email = try await idTokens.verify(token).account.email
        }
        guard let email else { throw FirebaseError("MISSING_EMAIL") }
        var newEmail: String?
        if action == .verifyAndChangeEmail {
            newEmail = try call.body.string("newEmail", missing: "MISSING_NEW_EMAIL")
        }
        do {
            let link = try await actionCodes.issueLink(
                action, email: email, newEmail: newEmail, continueURL: continueURL, requestID: call.requestID)
            return .json(
                200,
                [
                    "kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(link.email),
                    "oobCode": .string(link.oobCode), "oobLink": .string(link.oobLink),
                ])
        } catch let error as ActionCodeError where error.code == .accountNotFound {
            throw action == .resetPassword ? FirebaseError("EMAIL_NOT_FOUND") : FirebaseError.userNotFound
        }
    }

    /// `accounts:resetPassword` (`resetPassword`): `oobCode` alone answers what the code is for (using nothing
    /// up; an email sign-in code's address is not shown, as Firebase does); with `newPassword` it resets the
    /// password once, ends every session of the account (on both listeners) and verifies the email.
    func resetPassword(_ call: FirebaseCall) async throws -> HTTPResponse {
        let code = try call.body.string("oobCode", missing: "MISSING_OOB_CODE")
        let newPassword = try call.body.optionalString("newPassword").flatMap { $0.isEmpty ? nil : $0 }
        let service = actionCodes
        guard let newPassword else {
            let info = try await service.inspect(code: code)
            var answer: [String: JSONValue] = [
                "kind": "identitytoolkit#ResetPasswordResponse",
                "requestType": .string(Self.requestType(info.action)),
            ]
            if info.action != .signIn { answer["email"] = .string(info.email) }
            if let newEmail = info.newEmail { answer["newEmail"] = .string(newEmail) }
            return .json(200, .object(answer))
        }
        let done = try await service.confirm(
            code: code, expecting: .resetPassword, newPassword: newPassword, requestID: call.requestID)
        return .json(
            200,
            [
                "kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET",
                "email": .string(done.account.email ?? ""),
            ])
    }

    /// `accounts:update` (`setAccountInfo`) with an `oobCode`: applies a verification code, an email change's
    /// code or its recovery code once (Firebase's `applyActionCode`; contract section 9), answering the account as
    /// `setAccountInfo` does (with `newEmail` after an email change); nil when the body has no `oobCode` (the client
    /// part's update handles it). A reset or sign-in code is `INVALID_OOB_CODE`.
    public func applyActionCode(_ call: FirebaseCall) async throws -> HTTPResponse? {
        guard call.body.has("oobCode") else { return nil }
        let code = try call.body.string("oobCode", missing: "INVALID_OOB_CODE")
        let action = try await actionCodes.inspect(code: code).action
        guard Self.appliedActions.contains(action) else {
            throw ActionCodeError(.invalidCode, "the code is for another action")
        }
        let language = call.request.headers["x-firebase-locale"] ?? call.request.headers["accept-language"]
        let done = try await actionCodes.confirm(
            code: code, expecting: action, newPassword: nil, requestID: call.requestID, acceptLanguage: language)
        var answer: [String: JSONValue] = [
            "kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(done.account.id.rawValue),
            "emailVerified": .bool(done.account.emailVerified),
        ]
        if let email = done.account.email { answer["email"] = .string(email) }
        if let name = done.account.displayName { answer["displayName"] = .string(name) }
        if let photo = done.account.photoURL { answer["photoUrl"] = .string(photo) }
        if done.account.hasUsablePassword { answer["passwordHash"] = "UkVEQUNURUQ=" }
        if action == .verifyAndChangeEmail, let email = done.account.email { answer["newEmail"] = .string(email) }
        return .json(200, .object(answer))
    }

    /// The codes `applyActionCode` acts on.
    static let appliedActions: Set<MailAction> = [.verifyEmail, .verifyAndChangeEmail, .recoverEmail]

    /// `accounts:signInWithEmailLink` (`emailLinkSignin`): `email` and the code of an email sign-in link sign in
    /// as the holder of that address (created when none holds it, as Firebase does), through the sign-in core,
    /// with a session of this listener. With a guest's `idToken` (contract section 13) the link upgrades that guest
    /// in place (`isNewUser` false); with another user's, it links the address to that user (`linkWithCredential`):
    /// the account's own address or, for an account without one, a new one, verified; another address is
    /// `EMAIL_CHANGE_NEEDS_VERIFICATION` (the email change tells the old address), one another account holds
    /// `EMAIL_EXISTS`.
    func signInWithEmailLink(_ call: FirebaseCall) async throws -> HTTPResponse {
        let email = try call.body.string("email", missing: "MISSING_EMAIL")
        let code = try call.body.string("oobCode", missing: "MISSING_OOB_CODE")
        let result: SignInResult
        if call.body.has("idToken") {
            // A guest's link is its upgrade in place (contract section 13), refused when guests are off.
            result = try await services.signIn.linkOrUpgrade(
                try await authenticated(call).signedIn, emailLinkCode: code, email: email, requestID: call.requestID,
                surface: .firebase)
        } else {
            result = try await services.signIn.signIn(
                emailLinkCode: code, email: email, requestID: call.requestID,
                surface: .firebase)
        }
        return .json(
            200,
            [
                "kind": "identitytoolkit#EmailLinkSigninResponse", "idToken": .string(result.tokens.idToken),
                "email": .string(result.account.email ?? email),
                "refreshToken": .string(result.tokens.refreshToken),
                "expiresIn": .string(String(result.tokens.expiresIn)),
                "localId": .string(result.account.id.rawValue),
                "isNewUser": .bool(result.isNewUser),
            ])
    }

    /// `projects/{p}:createSessionCookie`: a session cookie for a valid ID token of this listener (refused as
    /// the token's verification says: `INVALID_ID_TOKEN`, `TOKEN_EXPIRED`, `USER_DISABLED`…), valid for
    /// `validDuration` seconds (300 to 1,209,600; else `INVALID_DURATION`).
    func createSessionCookie(_ call: FirebaseCall) async throws -> HTTPResponse {
        let token = try call.body.string("idToken", missing: "MISSING_ID_TOKEN")
        let duration: Int64
        do {
            duration =
                try call.body.optionalInt("validDuration", range: Int64.min...Int64.max)
                ?? Int64(FirebaseSessionCookies.maximumDuration)
        } catch {
            throw FirebaseError("INVALID_DURATION")
        }
        let range = Int64(FirebaseSessionCookies.minimumDuration)...Int64(FirebaseSessionCookies.maximumDuration)
        guard range.contains(duration) else { throw FirebaseError("INVALID_DURATION") }
        let user = try await idTokens.verify(token)
        let cookies = FirebaseSessionCookies(keys: services.keys, clock: services.clock, projectID: projectID)
        let cookie = try await cookies.mint(idTokenClaims: user.claims, validDuration: Int(duration))
        return .json(200, ["sessionCookie": .string(cookie)])
    }

    /// The trimmed `email` of a body: `MISSING_EMAIL` when absent, `INVALID_EMAIL` when not an address.
    static func email(_ body: FirebaseBody) throws -> String {
        let email = try body.string("email", missing: "MISSING_EMAIL").trimmingCharacters(in: .whitespaces)
        guard PasswordPolicy.isValidEmail(email) else { throw FirebaseError("INVALID_EMAIL") }
        return email
    }
}
