import BrokerCore
public import BrokerModel
/// Why one user record of an export cannot be imported (the import refuses that user, reported by its
/// index, and goes on with the others).
public struct FirebaseUserError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// The record is not a JSON object, or is larger than ``FirebaseUserRecord/maximumRecordBytes``.
        case invalidRecord = "INVALID_RECORD"
        /// `localId` is missing, empty, longer than 128 characters or holds control characters.
        case invalidLocalId = "INVALID_LOCAL_ID"
        /// `email` is not an address.
        case invalidEmail = "INVALID_EMAIL"
        /// `passwordHash` or `salt` is not base64 (in either alphabet).
        case invalidBase64 = "INVALID_BASE64"
        /// `createdAt` or `lastSignedInAt` is not milliseconds since 1970 (a string of digits or a number).
        case invalidTime = "INVALID_TIME"
        /// `customAttributes` is not the JSON text of an object Firebase would accept as custom claims.
        case invalidCustomAttributes = "INVALID_CUSTOM_ATTRIBUTES"
        /// An entry of `providerUserInfo` lacks `providerId` or `rawId`, or has a field of the wrong type.
        case invalidProviderUserInfo = "INVALID_PROVIDER_USER_INFO"
        /// Another field has the wrong type or is too long.
        case invalidField = "INVALID_FIELD"
    }

    /// The stable code.
    public var code: Code
    /// The field at fault (never its value: it may be a hash or an email).
    public var detail: String

    /// An error with `code`, naming `field`.
    public init(_ code: Code, _ field: String) {
        self.code = code
        self.detail = field
    }
}

extension FirebaseUserError {
    /// None: an internal failure (``CodedError``). A bad record is answered by the import that reads it, per record.
    public var refusal: Refusal? { nil }
}
