/// Why an administrator's account operation (``AdminService``'s `create`, `update(_:_:requestID:)`, look-ups,
/// pages and batches) was refused. Each surface spells the codes in its own dialect; `detail` says more, and
/// neither ever holds a password, a hash or a token.
public struct AccountAdminError: CodedError {
    /// The stable codes.
    public enum Code: String, Sendable {
        /// No account has the uid.
        case userNotFound
        /// An account holds the uid already.
        case duplicateLocalID
        /// Another account holds the email.
        case emailExists
        /// Another account holds the phone number.
        case phoneNumberExists
        /// The uid is empty, longer than 128 characters or holds control characters.
        case invalidLocalID
        /// The email is not an address.
        case invalidEmail
        /// The phone number is not E.164.
        case invalidPhoneNumber
        /// The password is shorter than 6 characters (or longer than the broker hashes).
        case weakPassword
        /// The photo URL is not one an account may hold (``PhotoURL``).
        case invalidPhotoURL
        /// The display name is longer than the broker keeps, or holds control characters.
        case invalidDisplayName
        /// The custom attributes are not a JSON object.
        case invalidClaims
        /// The custom attributes serialize to more than 1000 characters.
        case claimsTooLarge
        /// The custom attributes use a reserved claim name.
        case forbiddenClaim
        /// `validSince` is not a time the broker can use.
        case invalidValidSince
        /// Unlinking would leave the account no way to sign in (the broker's own rule).
        case lastIdentity
        /// A list of uids is empty or longer than 1000.
        case localIDListExceedsLimit
        /// A page token that is not one the broker gave.
        case invalidPageSelection
        /// A batch of users to import is empty or longer than 1000.
        case maximumUserCountExceeded
        /// The import's hash algorithm or its parameters cannot be used.
        case invalidHashAlgorithm
        /// A request field has a value the operation cannot use (an unsupported query, an unknown attribute).
        case invalidArgument
        /// Password hashing is not available to the admin service (the broker was built without a hasher).
        case passwordHashingUnavailable
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
}

extension AccountAdminError {
    /// The administrator's operation refused (``CodedError``).
    public var refusal: Refusal? {
        .adminRefused(code, detail: detail)
    }
}
