import Foundation

/// The photo URLs an account may hold: absolute `https` URLs with a host (`http` too when
/// `allowInsecureProviderUrls` is true), at most ``maximumLength`` bytes, without user info. Anything else
/// (`javascript:`, `data:`, a relative path) never reaches an app that renders the photo.
///
/// A client's value that breaks the rule is refused (400 `INVALID_REQUEST`); a provider's is dropped (stored as
/// null), never a reason to refuse the sign-in.
public enum PhotoURL {
    /// The longest photo URL kept.
    public static let maximumLength = 2048

    /// Whether `text` is a photo URL an account may hold.
    public static func isAcceptable(_ text: String, allowInsecure: Bool) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumLength,
            text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return false }
        return scheme == "https" || (allowInsecure && scheme == "http")
    }

    /// A provider's value: itself when acceptable, else nil.
    public static func sanitized(_ text: String?, allowInsecure: Bool) -> String? {
        text.flatMap { isAcceptable($0, allowInsecure: allowInsecure) ? $0 : nil }
    }
}
