/// How the stub's Naver and LINE APIs and the OIDC issuer's discovery misbehave, on demand.
public enum StubFault: Sendable, Equatable {
    /// Answers normally.
    case none
    /// Answers 503 (Naver: 500 with its `resultcode`).
    case down
    /// Answers normally after a delay.
    case slow(milliseconds: Int)
    /// Never answers within any sane timeout (30 s).
    case hang
    /// Refuses every token (Naver: 401 `024`; LINE: 400 `invalid_request`).
    case refusing
    /// Answers 403: our app may not call the API.
    case misconfigured
}
