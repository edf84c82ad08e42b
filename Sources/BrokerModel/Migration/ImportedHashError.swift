/// Why an imported password hash, or the hash flags that describe one, cannot be used.
///
/// The detail names the flag, field or algorithm at fault; it never contains a hash, salt, key or password.
public struct ImportedHashError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// `--hash-algo` names an algorithm the broker does not verify.
        case unsupportedAlgorithm = "UNSUPPORTED_HASH_ALGORITHM"
        /// The algorithm needs a parameter that was not given (`--hash-key` for SCRYPT, `--rounds`, …).
        case missingParameter = "MISSING_HASH_PARAMETER"
        /// A parameter is not a number or not valid base64, or is beyond the broker's bounds.
        case parameterOutOfRange = "HASH_PARAMETER_OUT_OF_RANGE"
        /// A user's hash does not fit the parameters (for example a length the algorithm cannot produce).
        case hashMismatch = "HASH_DOES_NOT_FIT_PARAMETERS"
        /// A stored hash string is not one of the forms ``ImportedPasswordHash`` writes.
        case malformed = "MALFORMED_IMPORTED_HASH"
    }

    /// The stable code.
    public var code: Code
    /// Which flag, field or algorithm is at fault, for logs and reports.
    public var detail: String

    /// An error with `code` and `detail`.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

extension ImportedHashError {
    /// None: an internal failure (``CodedError``). A hash the import cannot use is answered by the import itself.
    public var refusal: Refusal? { nil }
}
