public import BrokerCore
import BrokerIdentity
import BrokerModel
import Foundation

/// Verifies the ID tokens of the Firebase listener's sessions on the calls that take an `idToken` (contract
/// section 11), as Firebase answers them: a token that is not one of the broker's Firebase-shaped tokens
/// (signature, `iss`, `aud`, `sub` = `user_id`) is `INVALID_ID_TOKEN`; past its `exp`, issued before the account's
/// `validSince`, or of an ended session (exact revocation by `sid`), `TOKEN_EXPIRED`; an account that is gone
/// `USER_NOT_FOUND`; a disabled one `USER_DISABLED`.
public struct FirebaseIDTokenVerifier: Sendable {
    let keys: KeyRing
    let accounts: AccountService
    let sessions: SessionService
    let clock: any Clock
    let projectID: String

    /// The verifier of `services`' keys and project.
    public init(services: BrokerServices) {
        keys = services.keys
        accounts = services.accounts
        sessions = services.sessions
        clock = services.clock
        projectID = services.config.projectID
    }

    /// The token's account and session, or the ``FirebaseError`` Firebase answers.
    public func verify(_ token: String) async throws -> FirebaseAuthenticatedUser {
        guard token.utf8.count <= FirebaseBody.maximumStringBytes, let jwt = try? JWT(parsing: token),
            let kid = jwt.keyID, let key = await keys.key(id: kid),
            jwt.header["alg"]?.stringValue == key.algorithm.rawValue,
            key.verify(signature: jwt.signature, message: jwt.signingInput),
            jwt.claims["iss"]?.stringValue == FirebaseSessionFormat.issuer(projectID: projectID),
            jwt.claims["aud"]?.stringValue == projectID, let subject = jwt.claims["sub"]?.stringValue,
            !subject.isEmpty, jwt.claims["user_id"]?.stringValue == subject,
            let sessionID = jwt.claims["sid"]?.stringValue, (1...128).contains(sessionID.utf8.count),
            let expiry = jwt.claims["exp"]?.doubleValue, let issuedAt = jwt.claims["iat"]?.doubleValue
        else { throw FirebaseError.invalidIDToken }
        let now = clock.now
        guard expiry > now.timeIntervalSince1970 else { throw FirebaseError.tokenExpired }
        guard let account = try await accounts.account(AccountID(subject)) else { throw FirebaseError.userNotFound }
        if let validAfter = account.tokensValidAfter, issuedAt < validAfter.timeIntervalSince1970.rounded(.down) {
            throw FirebaseError.tokenExpired
        }
        guard try await sessions.isLive(session: sessionID, of: account.id) else {
            throw FirebaseError.tokenExpired
        }
        guard !account.disabled else { throw FirebaseError.userDisabled }
        return FirebaseAuthenticatedUser(
            account: account, sessionID: sessionID, claims: jwt.claims,
            signInProvider: jwt.claims["firebase"]?["sign_in_provider"]?.stringValue)
    }
}
