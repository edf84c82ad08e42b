public import BrokerCore
import BrokerCrypto
import BrokerIdentity
public import BrokerModel
public import Foundation

/// Checks the custom tokens of `accounts:signInWithCustomToken` (contract sections 3 and 11), strictly where
/// Firebase's own emulator checks nothing: RS256 signed by the configured service account's key, `iss` = `sub` = its
/// `client_email`, `aud` Identity Toolkit's custom-token audience, `uid` of 1 to 128 characters, `iat` not in the
/// future and `exp` after now and at most an hour after `iat`, `claims` (if any) an object without reserved names.
/// A token of another service account (another project) is `CREDENTIAL_MISMATCH`; anything else wrong,
/// `INVALID_CUSTOM_TOKEN`. Unsigned (`alg: none`) tokens only with `firebaseCompat.acceptUnsignedCustomTokens`.
/// A valid token may be used again until it expires, as Firebase allows, unless a takeover, a password reset or
/// a deletion of its uid came after its `iat` (the sign-in's write checks that:
/// ``AccountWriteOptions/customTokenIssuedAt``).
public struct FirebaseCustomTokenVerifier: Sendable {
    /// Claim names a custom token's `claims` may not use: Firebase's reserved ID-token claims and every claim the
    /// broker sets itself (``CustomClaims/setByTheBroker``: the claims reach the session's ID tokens).
    public static let reservedClaims: Set<String> = CustomClaims.setByTheBroker.union(CustomClaims.reservedByFirebase)

    let account: FirebaseServiceAccount?
    let acceptUnsigned: Bool
    let clock: any Clock
    let skew: TimeInterval

    /// The verifier of `services`' service account and `firebaseCompat` settings.
    public init(services: BrokerServices) {
        account = services.firebaseServiceAccount
        acceptUnsigned = services.config.firebaseCompat.acceptUnsignedCustomTokens
        clock = services.clock
        skew = services.config.clockSkew
    }

    /// A verified token's uid, developer claims and issue time.
    public struct Verified: Sendable, Equatable {
        /// `uid`.
        public var uid: AccountID
        /// `claims`, if any.
        public var claims: [String: JSONValue]?
        /// `iat`; `Date.distantPast` for an unsigned token without one (so any cutoff of its uid refuses it).
        public var issuedAt: Date = .distantPast
    }

    static func invalid(_ detail: String) -> CustomTokenError { CustomTokenError(.invalid, detail) }

    /// The token's uid and claims, or the ``CustomTokenError`` that refuses it (`INVALID_CUSTOM_TOKEN`, or
    /// `CREDENTIAL_MISMATCH` for another project's token).
    public func verify(_ token: String) throws -> Verified {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard token.utf8.count <= FirebaseBody.maximumStringBytes, parts.count == 3,
            let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
            let header = JSONValue.parse(headerBytes)?.objectValue,
            let payloadBytes = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
            let claims = JSONValue.parse(payloadBytes)?.objectValue
        else { throw Self.invalid("The custom token format is incorrect. Please check the documentation.") }
        guard header.keys.allSatisfy({ !JWT.forbiddenHeaderFields.contains($0) }) else {
            throw Self.invalid("The custom token's header is not accepted.")
        }
        let now = clock.now.timeIntervalSince1970
        switch header["alg"]?.stringValue {
        case "none"?:
            guard acceptUnsigned, parts[2].isEmpty else {
                throw Self.invalid("Unsigned custom tokens are not accepted (firebaseCompat.acceptUnsignedCustomTokens).")
            }
            if let expiry = claims["exp"] {
                guard let seconds = expiry.doubleValue, seconds > now else { throw Self.invalid("Token expired.") }
            }
            var verified = try Self.verified(claims)
            if let issued = claims["iat"] {
                guard let seconds = issued.doubleValue, seconds.isFinite, seconds <= now + skew else {
                    throw Self.invalid("The custom token's iat is not valid.")
                }
                verified.issuedAt = Date(timeIntervalSince1970: seconds)
            }
            return verified
        case "RS256"?:
            guard let account else {
                throw Self.invalid("No service account is configured: only the broker's own custom tokens are accepted.")
            }
            guard let issuer = claims["iss"]?.stringValue, claims["sub"]?.stringValue == issuer,
                claims["aud"]?.stringValue == FirebaseEndpoints.customTokenAudience
            else { throw Self.invalid("The custom token's iss, sub or aud is not a custom token's.") }
            guard issuer == account.clientEmail else {
                throw CustomTokenError(.audienceMismatch)
            }
            guard let jwt = try? JWT(parsing: token), header["kid"].map({ $0.stringValue == account.privateKeyID.rawValue }) ?? true,
                account.verifies(signature: jwt.signature, message: jwt.signingInput)
            else { throw Self.invalid("The custom token's signature does not verify.") }
            guard let issuedAt = claims["iat"]?.doubleValue, let expiry = claims["exp"]?.doubleValue,
                issuedAt <= now + skew, expiry > now, expiry > issuedAt, expiry - issuedAt <= 3600
            else { throw Self.invalid("Token expired, or its iat and exp are not valid.") }
            var verified = try Self.verified(claims)
            verified.issuedAt = Date(timeIntervalSince1970: issuedAt)
            return verified
        default:
            throw Self.invalid("The custom token's algorithm is not accepted.")
        }
    }

    static func verified(_ claims: [String: JSONValue]) throws -> Verified {
        guard let uid = claims["uid"]?.stringValue, (1...128).contains(uid.count),
            !uid.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw invalid("uid must be a string of 1 to 128 characters.") }
        var developer: [String: JSONValue]?
        switch claims["claims"] {
        case nil, .null?: developer = nil
        case .object(let object)?:
            guard object.keys.allSatisfy({ !reservedClaims.contains($0) }) else {
                throw invalid("claims may not use a reserved claim name.")
            }
            // Firebase's limit on developer claims.
            guard JSONValue.object(object).serialized().count <= 1000 else { throw invalid("claims are over 1000 bytes.") }
            developer = object
        default: throw invalid("claims must be an object.")
        }
        return Verified(uid: AccountID(uid), claims: developer)
    }
}
