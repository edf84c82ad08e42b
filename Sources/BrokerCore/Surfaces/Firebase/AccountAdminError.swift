/// Why an administrator's account operation of Firebase's admin API (``AdminService``'s `firebase…` methods)
/// was refused. The codes are Firebase's own (its SDKs map them to error types), and `detail` is the text
/// Firebase puts after `CODE : `; neither ever holds a password, a hash or a token.
public struct AccountAdminError: CodedError {
    /// The stable codes, spelled as Firebase spells them.
    public enum Code: String, Sendable {
        /// No account has the uid.
        case userNotFound = "USER_NOT_FOUND"
        /// An account holds the uid already.
        case duplicateLocalID = "DUPLICATE_LOCAL_ID"
        /// Another account holds the email.
        case emailExists = "EMAIL_EXISTS"
        /// Another account holds the phone number.
        case phoneNumberExists = "PHONE_NUMBER_EXISTS"
        /// The uid is empty, longer than 128 characters or holds control characters.
        case invalidLocalID = "INVALID_LOCAL_ID"
        /// The email is not an address.
        case invalidEmail = "INVALID_EMAIL"
        /// The phone number is not E.164.
        case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
        /// The password is shorter than 6 characters (or longer than the broker hashes).
        case weakPassword = "WEAK_PASSWORD"
        /// The photo URL is not one an account may hold (``PhotoURL``).
        case invalidPhotoURL = "INVALID_PHOTO_URL"
        /// The display name is longer than the broker keeps, or holds control characters.
        case invalidDisplayName = "INVALID_DISPLAY_NAME"
        /// The custom attributes are not a JSON object.
        case invalidClaims = "INVALID_CLAIMS"
        /// The custom attributes serialize to more than 1000 characters.
        case claimsTooLarge = "CLAIMS_TOO_LARGE"
        /// The custom attributes use a reserved claim name.
        case forbiddenClaim = "FORBIDDEN_CLAIM"
        /// `validSince` is not a time the broker can use.
        case invalidValidSince = "INVALID_VALID_SINCE"
        /// Unlinking would leave the account no way to sign in (the broker's rule, not Firebase's).
        case lastIdentity = "LAST_IDENTITY"
        /// A list of uids is empty or longer than 1000.
        case localIDListExceedsLimit = "LOCAL_ID_LIST_EXCEEDS_LIMIT"
        /// A page token that is not one the broker gave.
        case invalidPageSelection = "INVALID_PAGE_SELECTION"
        /// A batch of users to import is empty or longer than 1000.
        case maximumUserCountExceeded = "MAXIMUM_USER_COUNT_EXCEEDED"
        /// The import's hash algorithm or its parameters cannot be used.
        case invalidHashAlgorithm = "INVALID_HASH_ALGORITHM"
        /// A request field has a value the operation cannot use (an unsupported query, an unknown attribute).
        case invalidArgument = "INVALID_ARGUMENT"
        /// Password hashing is not available to the admin service (the broker was built without a hasher).
        case passwordHashingUnavailable = "PASSWORD_HASHING_UNAVAILABLE"
    }

    /// The code.
    public var code: Code
    /// Firebase's text after `CODE : `, empty when it writes the code alone.
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
