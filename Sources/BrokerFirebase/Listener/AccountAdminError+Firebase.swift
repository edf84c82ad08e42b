import BrokerCore
import BrokerModel
extension AccountAdminError.Code {
    /// The code as Firebase's admin API spells it (its Admin SDKs map these to their error types).
    var firebaseCode: String {
        switch self {
        case .userNotFound: "USER_NOT_FOUND"
        case .duplicateLocalID: "DUPLICATE_LOCAL_ID"
        case .emailExists: "EMAIL_EXISTS"
        case .phoneNumberExists: "PHONE_NUMBER_EXISTS"
        case .invalidLocalID: "INVALID_LOCAL_ID"
        case .invalidEmail: "INVALID_EMAIL"
        case .invalidPhoneNumber: "INVALID_PHONE_NUMBER"
        case .weakPassword: "WEAK_PASSWORD"
        case .invalidPhotoURL: "INVALID_PHOTO_URL"
        case .invalidDisplayName: "INVALID_DISPLAY_NAME"
        case .invalidClaims: "INVALID_CLAIMS"
        case .claimsTooLarge: "CLAIMS_TOO_LARGE"
        case .forbiddenClaim: "FORBIDDEN_CLAIM"
        case .invalidValidSince: "INVALID_VALID_SINCE"
        case .lastIdentity: "LAST_IDENTITY"
        case .localIDListExceedsLimit: "LOCAL_ID_LIST_EXCEEDS_LIMIT"
        case .invalidPageSelection: "INVALID_PAGE_SELECTION"
        case .maximumUserCountExceeded: "MAXIMUM_USER_COUNT_EXCEEDED"
        case .invalidHashAlgorithm: "INVALID_HASH_ALGORITHM"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .passwordHashingUnavailable: "PASSWORD_HASHING_UNAVAILABLE"
        }
    }
}
