/// Why a change to the OpenID Connect providers managed at run time (``ProviderConfigService``) was refused. Each
/// surface spells the codes in its own dialect; `detail` never holds a client secret.
public struct ProviderConfigError: CodedError {
    /// The stable codes.
    public enum Code: String, Sendable {
        /// The id is not a provider id (a-z, 0-9 and -, starting with a letter, at most 32) or is a reserved one.
        case invalidProviderID
        /// A field has a value the provider cannot use (an issuer that is not https, no response type).
        case invalidConfig
        /// A provider of the config file, or one stored, has the id already.
        case configurationExists
        /// No provider has the id.
        case configurationNotFound
        /// The provider is one of the config file's: it is read-only here.
        case readOnly
        /// A client secret cannot be kept sealed: no `BROKER_ENCRYPTION_KEY` is configured.
        case secretNeedsKey
    }

    /// The code.
    public var code: Code
    /// What more there is to say, empty when the code says it all.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The provider's change refused (``CodedError``).
    public var refusal: Refusal? { .providerConfig(code, detail: detail) }
}
