/// Developer claims carried in custom tokens and the broker's ID tokens, validated as Firebase does.
public enum CustomClaims {
    /// Claim names Firebase reserves (OIDC and Firebase's own).
    public static let reserved: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti",
        "nbf", "nonce", "sub", "email", "email_verified", "sign_in_provider", "uid",
    ]
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
