public import BrokerModel

/// Developer claims carried in custom tokens and the broker's ID tokens, validated as Firebase does.
public enum CustomClaims {
    /// The claims the broker sets itself in the tokens it mints (contract section 16): a developer claim of one of
    /// these names would forge it (`mfa` would say a second factor was completed), so none comes in, whether by a
    /// hook, the admin API, the listener's `customAttributes` and custom tokens, or an import.
    public static let setByTheBroker: Set<String> = [
        "iss", "sub", "aud", "exp", "iat", "nbf", "jti", "auth_time", "sid", "nonce", "azp", "at_hash", "email",
        "email_verified", "phone_number", "sign_in_provider", "mfa", "mfa_factor_id", "idv", "adult", "firebase",
        "user_id",
    ]

    /// The ID-token claims Firebase reserves (OIDC's and its own), which no developer claim may use there either.
    public static let reservedByFirebase: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti",
        "nbf", "nonce", "sub",
    ]

    /// Claim names no developer claim may use: ``setByTheBroker``, ``reservedByFirebase`` and `uid`.
    public static let reserved: Set<String> = setByTheBroker.union(reservedByFirebase).union(["uid"])

    /// `claims` without a ``reserved`` name: what the tokens the broker mints take from an account's stored claims,
    /// so that claims stored before a name was reserved cannot set what the broker sets.
    public static func developerClaims(_ claims: [String: JSONValue]) -> [String: JSONValue] {
        guard claims.keys.contains(where: reserved.contains) else { return claims }
        return claims.filter { !reserved.contains($0.key) }
    }
    /// The longest serialized claims Firebase accepts.
    public static let maximumLength = 1000

    /// Checks `claims` and returns their JSON text; throws 400 `INVALID_REQUEST` naming the problem.
    public static func validated(_ claims: JSONValue) throws -> String {
        guard let members = claims.objectValue else {
            throw RequestError.invalidRequest("claims must be a JSON object.")
        }
        if let name = members.keys.sorted().first(where: reserved.contains) {
            throw RequestError.invalidRequest("claims must not use the reserved name \"\(name)\".")
        }
        // A number past Double's range (1e400) parses as infinity and would be written as null: refused, not
        // silently changed.
        guard allFinite(claims) else { throw RequestError.invalidRequest("claims must hold only finite numbers.") }
        let text = String(decoding: claims.serialized(), as: UTF8.self)
        guard text.count <= maximumLength else {
            throw RequestError.invalidRequest("claims must serialize to at most \(maximumLength) characters.")
        }
        return text
    }

    /// Whether every number in `value` is finite (depth is bounded by the parser's 32 levels).
    private static func allFinite(_ value: JSONValue) -> Bool {
        switch value {
        case .double(let number): number.isFinite
        case .array(let items): items.allSatisfy(allFinite)
        case .object(let members): members.values.allSatisfy(allFinite)
        default: true
        }
    }
}
