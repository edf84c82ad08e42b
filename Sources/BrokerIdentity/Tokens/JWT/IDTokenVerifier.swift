public import BrokerCrypto
public import BrokerModel
public import Foundation

/// Whether an ID token sign-in must carry a raw nonce.
public enum NonceRequirement: String, Sendable {
    /// A body without `rawNonce` is refused with `MISSING_NONCE`.
    case required
    /// The nonce is checked when the body has one.
    case optional
}

/// What an issuer's ID tokens must satisfy. Built from config, never from the token.
public struct IDTokenRules: Sendable {
    /// Accepted `iss` values.
    public var issuers: [String]
    /// Accepted `aud` values (a token's `aud` must name at least one).
    public var audiences: [String]
    /// Tolerance for `exp`, `iat` and `nbf`.
    public var clockSkew: TimeInterval
    /// Whether a raw nonce is required.
    public var nonce: NonceRequirement
    /// The algorithms a token may be signed with (pinned per provider; RS256 unless the provider says otherwise).
    public var algorithms: [JWSAlgorithm]
    /// Whether `exp` is required (true for every ID token; false for a provider's signed notification, which
    /// need not carry one: Apple's server-to-server notifications). An `exp` that is present is checked either way.
    public var requiresExpiry = true
    /// Whether a non-empty `sub` is required (false for a notification, whose subject is inside its events).
    public var requiresSubject = true

    /// Creates rules.
    public init(
        issuers: [String], audiences: [String], clockSkew: TimeInterval, nonce: NonceRequirement,
        algorithms: [JWSAlgorithm] = [.rs256]
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.clockSkew = clockSkew
        self.nonce = nonce
        self.algorithms = algorithms
    }
}

/// Where an ``IDTokenVerifier`` finds the RSA key for a `kid`.
public protocol RSAKeySource: VerificationKeySource {
    /// The key with id `kid`, or nil; throws when the keys cannot be had at all.
    func key(id kid: KeyID) async throws -> RSAPublicKey?
}

extension RSAKeySource {
    /// The RSA key with id `kid`, as a ``ProviderKey``.
    public func verificationKey(id kid: KeyID) async throws -> ProviderKey? {
        try await key(id: kid).map(ProviderKey.rsa)
    }
}

/// Verifies ID tokens of one issuer: algorithm pinned (``IDTokenRules/algorithms``, RS256 by default; a key
/// verifies only its own algorithm), key from that issuer's JWKS by `kid` only,
/// then issuer, audience, expiry, issue time, not-before, subject and nonce, all as part of `verify`.
///
/// Every time claim (`exp`, `iat`, `nbf`, `auth_time`) must be a JSON number above 0 and below
/// ``IDTokenVerifier/timeClaimLimit``, else the token is `malformed`: a signed token is still outside input, and a
/// number past the bound would trap where a time is converted. The claims it returns have passed that check.
public struct IDTokenVerifier: Sendable {
    /// The bound on time claims: a claim must name more than 0 and fewer than 2^33 seconds after 1970 (the
    /// year 2242).
    public static let timeClaimLimit: Double = 8_589_934_592

    private let keys: any VerificationKeySource
    private let rules: IDTokenRules
    private let clock: any Clock

    /// Creates a verifier.
    public init(keys: any VerificationKeySource, rules: IDTokenRules, clock: any Clock) {
        self.keys = keys
        self.rules = rules
        self.clock = clock
    }

    /// The verified claims of `token` with its subject (`sub`, a non-empty string, else
    /// ``TokenError/Code/missingSubject``), for the providers whose identity it names.
    public func verifySubject(
        _ token: String, rawNonce: String?
    ) async throws -> (subject: String, claims: [String: JSONValue]) {
        let claims = try await verify(token, rawNonce: rawNonce)
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw TokenError(.missingSubject) }
        return (subject, claims)
    }

    /// Returns the verified claims of `token`, or throws ``TokenError`` (or the key source's error).
    public func verify(_ token: String, rawNonce: String?) async throws -> [String: JSONValue] {
        let rawNonce = rawNonce.flatMap { $0.isEmpty ? nil : $0 }
        if rules.nonce == .required && rawNonce == nil { throw TokenError(.missingNonce) }
        let jwt = try JWT(parsing: token)
        guard let name = jwt.header["alg"]?.stringValue, let algorithm = JWSAlgorithm(rawValue: name),
            rules.algorithms.contains(algorithm)
        else { throw TokenError(.algorithmNotAllowed) }
        if let field = jwt.header.keys.first(where: JWT.forbiddenHeaderFields.contains) {
            throw TokenError(.forbiddenHeader, field)
        }
        guard let kid = jwt.keyID, let key = try await keys.verificationKey(id: kid),
            key.algorithm == algorithm
        else { throw TokenError(.unknownKey) }
        guard key.verify(signature: jwt.signature, message: jwt.signingInput) else {
            throw TokenError(.badSignature)
        }
        try checkClaims(jwt.claims, rawNonce: rawNonce)
        return jwt.claims
    }

    private func checkClaims(_ claims: [String: JSONValue], rawNonce: String?) throws {
        guard let issuer = claims["iss"]?.stringValue, rules.issuers.contains(issuer) else {
            throw TokenError(.invalidIssuer)
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single): audiences = [single]
        case .array(let many): audiences = many.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(where: rules.audiences.contains) else { throw TokenError(.invalidAudience) }
        let now = clock.now.timeIntervalSince1970
        let expiry = try IDTokenVerifier.timeClaim("exp", in: claims)
        if rules.requiresExpiry && expiry == nil { throw TokenError(.malformed, "exp") }
        guard let issued = try IDTokenVerifier.timeClaim("iat", in: claims) else { throw TokenError(.malformed, "iat") }
        let notBefore = try IDTokenVerifier.timeClaim("nbf", in: claims)
        _ = try IDTokenVerifier.timeClaim("auth_time", in: claims)
        if let expiry, expiry + rules.clockSkew <= now { throw TokenError(.expired) }
        guard issued <= now + rules.clockSkew else { throw TokenError(.issuedInFuture) }
        if let notBefore, notBefore > now + rules.clockSkew { throw TokenError(.notYetValid) }
        if rules.requiresSubject {
            guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw TokenError(.missingSubject) }
        }
        if let rawNonce {
            let expected = Array(Hex.encode(Digest.sha256(rawNonce)).utf8)
            guard let nonce = claims["nonce"]?.stringValue,
                constantTimeEquals(Array(nonce.utf8), expected)
            else { throw TokenError(.nonceMismatch) }
        }
    }

    /// The claim `name` as seconds after 1970, nil when absent; `malformed` when it is not a number (a string,
    /// null, a boolean) or not above 0 and below ``timeClaimLimit`` (negative, zero, 1e17, 1e300, an overflow to
    /// infinity).
    static func timeClaim(_ name: String, in claims: [String: JSONValue]) throws -> Double? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite, seconds > 0, seconds < timeClaimLimit else {
            throw TokenError(.malformed, name)
        }
        return seconds
    }
}
