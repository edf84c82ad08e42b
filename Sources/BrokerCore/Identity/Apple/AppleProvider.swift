import BrokerCrypto
import Foundation

/// Sign in with Apple: an Apple identity token, verified against Apple's JWKS.
///
/// Body: `{"identityToken": "...", "rawNonce": "...", "fullName": {"givenName", "familyName"}}`.
/// - The nonce is required by default: apps pass SHA-256(rawNonce) to Apple and the raw value here.
/// - Each identity token is accepted once: it is recorded (by hash) in the sign-in's own transaction.
/// - Apple sends the user's name to the app on the first authorization only, never in the token; the body's
///   `fullName` is used when the account is created and ignored afterwards.
/// - `email_verified` and `is_private_email` come as booleans or as the strings "true"/"false".
public struct AppleProvider: IdentityProvider, IDTokenVerifying {
    /// `apple`.
    public var id: ProviderID { Self.id }
    private let issuer: OIDCIssuer
    private let clockSkew: TimeInterval

    init(issuer: OIDCIssuer, clockSkew: TimeInterval) {
        self.issuer = issuer
        self.clockSkew = clockSkew
    }

    /// Verifies the body's identity token and marks it used.
    public func signIn(body: [String: JSONValue]) async throws -> ProviderSignIn {
        let token = try requiredString(body, "identityToken")
        let rawNonce = try optionalString(body, "rawNonce")
        let claims = try await issuer.verifier.verify(token, rawNonce: rawNonce)
        var identity = identity(from: claims)
        if identity.displayName == nil { identity.displayName = try AppleProvider.fullName(body["fullName"]) }
        let expiry = Date(timeIntervalSince1970: claims["exp"]?.doubleValue ?? 0) + clockSkew
        let mark = SingleUseMark(key: "apple:" + Hex.encode(Digest.sha256(token)), expiresAt: expiry)
        return ProviderSignIn(identity: identity, singleUse: mark)
    }

    /// Verifies an Apple identity token and reads its identity (without recording its use).
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        identity(from: try await issuer.verifier.verify(token, rawNonce: rawNonce))
    }

    private func identity(from claims: [String: JSONValue]) -> ExternalIdentity {
        ExternalIdentity(
            provider: id, subject: claims["sub"]?.stringValue ?? "", email: claims["email"]?.stringValue,
            emailVerified: AppleProvider.flag(claims["email_verified"]))
    }

    /// Apple's boolean claims: `true` or `"true"`.
    static func flag(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: return flag
        case .string(let text)?: return text.lowercased() == "true"
        default: return false
        }
    }

    /// "Given Family" from the body's `fullName`, nil when absent or empty.
    static func fullName(_ value: JSONValue?) throws -> String? {
        guard let value, value != .null else { return nil }
        guard let parts = value.objectValue else { throw ProviderError(.invalidRequest, "fullName must be an object") }
        let names = try ["givenName", "middleName", "familyName"].compactMap { key -> String? in
            let part = try optionalString(parts, key)?.trimmingCharacters(in: .whitespacesAndNewlines)
            return part?.isEmpty == false ? part : nil
        }
        return names.isEmpty ? nil : names.joined(separator: " ")
    }
}

extension AppleProvider: IdentityProviderFactory {
    /// `apple`.
    public static let id = ProviderID("apple")

    /// Builds the provider from its `providers.apple` entry.
    public static func make(config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly(["enabled", "audiences", "issuers", "jwksUrl", "nonce", "accountMapping"])
        _ = try OIDCIssuer.accountMapping(config)
        let issuer = try OIDCIssuer(
            config: config, provider: id, defaultIssuers: ["https://appleid.apple.com", "https://account.apple.com"],
            defaultNonce: .required, context: context)
        return AppleProvider(issuer: issuer, clockSkew: context.clockSkew)
    }
}
