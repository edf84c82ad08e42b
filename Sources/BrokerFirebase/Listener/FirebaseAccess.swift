import BrokerCore
/// Who may call a Firebase route.
public enum FirebaseAccess: Sendable, Equatable {
    /// A client call: an API key (`key=` or `X-Goog-Api-Key`) or `Bearer owner`; else 403 `PERMISSION_DENIED`.
    case client
    /// An admin call: `Bearer owner`; else 401 `UNAUTHENTICATED`.
    case admin
}
