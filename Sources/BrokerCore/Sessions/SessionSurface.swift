/// The listener a session was made on. A session works only where it began: the native API's `POST /v1/token`
/// refuses a Firebase-compatible session's refresh token, and the Firebase listener's `securetoken` refuses a
/// native one (contract section 11).
public enum SessionSurface: String, Sendable, Equatable, CaseIterable {
    /// The broker's own API (`/v1`).
    case native
    /// The Firebase-compatible listener (`firebaseCompat`).
    case firebase
}
