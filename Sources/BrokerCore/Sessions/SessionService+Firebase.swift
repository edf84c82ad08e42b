public import Foundation

extension SessionService {
    /// The `iss` of the Firebase-shaped ID tokens of project `projectID`.
    public static func firebaseIssuer(projectID: String) -> String {
        FirebaseEndpoints.secureTokenIssuerPrefix + projectID
    }

    /// An ID token in Firebase's shape (contract section 11) for a session of the Firebase-compatible listener,
    /// signed by the broker's keys: `iss` `https://securetoken.…/{projectId}`, `aud` the project, `sub` =
    /// `user_id` = uid, `auth_time`, `iat`, `exp`, `email`, `email_verified`, `name`, `picture`, `firebase:
    /// {identities, sign_in_provider}`, the custom claims at the top level, and `sid` (the session, for exact
    /// revocation). `sessionClaims` (a custom token's `claims`, JSON object text) go over the account's custom
    /// claims. `provider` is Firebase's id of the sign-in method (`password`, `custom`, a provider's).
    public func firebaseIDToken(
        for account: Account, provider: String, sessionID: String, sessionClaims: String? = nil, authTime: Date,
        now: Date
    ) async throws -> String {
        let key = try await keys.current()
        let issuedAt = Int64(now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [:]
        if let name = account.displayName { claims["name"] = .string(name) }
        if let photo = account.photoURL { claims["picture"] = .string(photo) }
        claims.merge(SessionService.customClaims(of: account) ?? [:]) { _, custom in custom }
        if let sessionClaims, let object = JSONValue.parse(Array(sessionClaims.utf8))?.objectValue {
            claims.merge(object) { _, session in session }
        }
        var identities: [String: [JSONValue]] = [:]
        if let email = account.email { identities["email"] = [.string(email)] }
        for identity in account.identities {
            identities[firebaseProviderName(identity.provider), default: []].append(.string(identity.subject))
        }
        let reserved: [String: JSONValue] = [
            "iss": .string(SessionService.firebaseIssuer(projectID: settings.projectID)),
            "aud": .string(settings.projectID), "sub": .string(account.id.rawValue),
            "user_id": .string(account.id.rawValue), "iat": .int(issuedAt),
            "exp": .int(issuedAt + Int64(settings.idTokenTTL)),
            "auth_time": .int(Int64(authTime.timeIntervalSince1970)),
            "email_verified": .bool(account.emailVerified), "sid": .string(sessionID),
            "firebase": .object([
                "identities": .object(identities.mapValues { .array($0) }), "sign_in_provider": .string(provider),
            ]),
        ]
        claims.merge(reserved) { _, reserved in reserved }
        if let email = account.email { claims["email"] = .string(email) } else { claims["email"] = nil }
        let header: [String: JSONValue] = ["alg": .string(key.algorithm.rawValue), "kid": .string(key.id.rawValue), "typ": "JWT"]
        return try JWT.encode(header: header, claims: claims, sign: key.sign)
    }
}
