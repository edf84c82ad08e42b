import BrokerCore
import BrokerCrypto
import Foundation

/// What the stub providers send to the broker's webhooks (contract section 10): Kakao's unlink callback and
/// Apple's signed server-to-server notifications, for tests and scripts to deliver to `/v1/webhooks/...`.
extension StubProviders {
    /// Kakao's unlink callback as Kakao sends it: `POST /v1/webhooks/kakao/unlink` with
    /// `Authorization: KakaoAK <adminKey>` and the form `app_id`, `user_id`, `referrer_type`.
    public struct KakaoUnlinkCallback: Sendable {
        /// The broker's route.
        public static let path = "/v1/webhooks/kakao/unlink"
        /// The Kakao user who disconnected the app.
        public var userID: Int64
        /// The app id sent (the stubs' by default).
        public var appID: String = StubProviders.kakaoAppID
        /// The admin key sent (the stubs' by default).
        public var adminKey: String = StubKakaoAdmin.adminKey
        /// How the user disconnected (`UNLINK_FROM_APPS`, `ACCOUNT_DELETE`, ...).
        public var referrerType: String = "UNLINK_FROM_APPS"

        /// A callback for `userID`.
        public init(userID: Int64) { self.userID = userID }

        /// The request's header fields.
        public var headers: [String: String] {
            ["Authorization": "KakaoAK " + adminKey, "Content-Type": "application/x-www-form-urlencoded"]
        }

        /// The request's form body.
        public var body: [UInt8] { Array("app_id=\(appID)&user_id=\(userID)&referrer_type=\(referrerType)".utf8) }
    }

    /// The broker's route for Apple's notifications.
    public static let appleNotificationPath = "/v1/webhooks/apple"

    /// An Apple server-to-server notification signed with the stubs' Apple key, as the JSON body Apple posts:
    /// `{"payload": JWT}` whose claims are Apple's (`iss`, `aud` the stubs' audience, `iat`, `jti`, and `events` a
    /// JSON string with `type`, `sub`, `event_time` and, for the email events, `email`). No `exp`, no `sub`.
    public func appleNotification(
        type: String, subject: String, email: String? = nil, jti: String = UUID().uuidString,
        issuedAt: Date = Date(), signingKey: RSAPrivateKey? = nil
    ) throws -> JSONValue {
        var event: [String: JSONValue] = [
            "type": .string(type), "sub": .string(subject), "event_time": .int(Int64(issuedAt.timeIntervalSince1970) * 1000),
        ]
        if let email {
            event["email"] = .string(email)
            event["is_private_email"] = "true"
        }
        let events = String(decoding: JSONValue.object(event).serialized(), as: UTF8.self)
        let token = try idToken(
            "apple",
            claims: [
                "sub": .null, "exp": .null, "iat": .int(Int64(issuedAt.timeIntervalSince1970)), "jti": .string(jti),
                "events": .string(events),
            ], signingKey: signingKey)
        return ["payload": .string(token)]
    }
}
