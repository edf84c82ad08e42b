import BrokerModel
import Foundation

/// Writes a code's mail as an outbox job: the templates in the reader's language, the link to the broker's page,
/// the payload sealed when a key is configured. ``EmailActionService`` mails with it when a user asks; an email
/// change's confirmation (``ActionCodeService``) mails the old address its recovery link with it.
struct MailComposer: Sendable {
    /// The `mail` section.
    let settings: MailSettings
    /// The broker's public address (links point at its `/auth/action`).
    let issuer: String
    /// Seals the job's payload (it holds the code); nil: stored as given.
    let cipher: OutboxCipher?

    /// The mail of `action` to `email` with the link of `code`, as an outbox job of `uid` (nil for an address no
    /// account holds) made at `now`, in the language `acceptLanguage` prefers, else `mail.defaultLanguage`.
    func job(
        _ action: MailAction, to email: String, uid: AccountID?, code: String, continueURL: String?,
        acceptLanguage: String?, at now: Date
    ) throws -> OutboxJob {
        let language = MailTemplates.language(forAcceptLanguage: acceptLanguage, fallback: settings.defaultLanguage)
        let link = EmailActionService.link(issuer: issuer, action, code: code, continueURL: continueURL)
        let parts = settings.templates.render(
            action, language: language, appName: settings.appName, email: email, link: link)
        let message = MailMessage(
            from: settings.from, to: email, subject: parts.subject, text: parts.text, html: parts.html)
        let job = MailOutboxHandler.job(for: message, uid: uid, createdAt: now)
        return try cipher.map { try $0.sealing(job) } ?? job
    }
}
