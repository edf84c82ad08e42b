public import Foundation

/// The signed-in user as the broker shows it (the contract's `user`, section 2).
public struct BrokerUser: Sendable, Equatable, Codable {
    /// One provider linked to the account.
    public struct Identity: Sendable, Equatable, Codable {
        /// The provider's id (`google`, `apple`, `kakao`, an OpenID Connect entry's key, …).
        public var provider: String
        /// The user's id at that provider.
        public var subject: String
        /// The email that provider gave, if any.
        public var email: String?
        /// When it was linked.
        public var linkedAt: Date?
    }

    /// The account's id: the Firebase uid too, when the app signs in to Firebase with ``BrokerAuth/customToken``.
    public var uid: String
    /// The account's email, if it has one.
    public var email: String?
    /// Whether the email is verified.
    public var emailVerified: Bool
    /// The display name, if any.
    public var displayName: String?
    /// The photo's URL, if any.
    public var photoURL: URL?
    /// Whether an admin disabled the account.
    public var disabled: Bool
    /// Whether the account is a guest (contract section 13), upgraded in place by a link or a sign-up.
    public var isAnonymous: Bool
    /// When the account was created.
    public var createdAt: Date?
    /// When it last signed in.
    public var lastSignInAt: Date?
    /// The providers linked to the account.
    public var identities: [Identity]

    enum CodingKeys: String, CodingKey {
        case uid, email, emailVerified, displayName, photoURL = "photoUrl", disabled, isAnonymous, createdAt
        case lastSignInAt, identities
    }

    /// Decodes the contract's `user` object (times as RFC 3339 strings).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uid = try container.decode(String.self, forKey: .uid)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        photoURL = try container.decodeIfPresent(String.self, forKey: .photoURL).flatMap(URL.init(string:))
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        isAnonymous = try container.decodeIfPresent(Bool.self, forKey: .isAnonymous) ?? false
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt).flatMap(RFC3339.date)
        lastSignInAt = try container.decodeIfPresent(String.self, forKey: .lastSignInAt).flatMap(RFC3339.date)
        identities = try container.decodeIfPresent([Identity].self, forKey: .identities) ?? []
    }

    /// Encodes it as the contract writes it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid, forKey: .uid)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encode(emailVerified, forKey: .emailVerified)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        try container.encodeIfPresent(photoURL?.absoluteString, forKey: .photoURL)
        try container.encode(disabled, forKey: .disabled)
        try container.encode(isAnonymous, forKey: .isAnonymous)
        try container.encodeIfPresent(createdAt.map(RFC3339.string), forKey: .createdAt)
        try container.encodeIfPresent(lastSignInAt.map(RFC3339.string), forKey: .lastSignInAt)
        try container.encode(identities, forKey: .identities)
    }
}

extension BrokerUser.Identity {
    enum CodingKeys: String, CodingKey { case provider, subject, email, linkedAt }

    /// Decodes one element of the contract's `identities`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        provider = try container.decode(String.self, forKey: .provider)
        subject = try container.decode(String.self, forKey: .subject)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        linkedAt = try container.decodeIfPresent(String.self, forKey: .linkedAt).flatMap(RFC3339.date)
    }

    /// Encodes it as the contract writes it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(subject, forKey: .subject)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(linkedAt.map(RFC3339.string), forKey: .linkedAt)
    }
}

/// RFC 3339 times in UTC, with or without fractional seconds.
enum RFC3339 {
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    static func string(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
