import BrokerCore
import BrokerHTTP
public import BrokerCrypto
public import BrokerModel
public import Foundation

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
    /// JSON string with `type`, `sub`, `event_time` and, for the email events, `email`). No `sub`; no `exp`
    /// unless `expiresAt` is given.
    public func appleNotification(
        type: String, subject: String, email: String? = nil, jti: String = UUID().uuidString,
        issuedAt: Date = Date(), expiresAt: Date? = nil, signingKey: RSAPrivateKey? = nil
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
                "sub": .null, "exp": expiresAt.map { .int(Int64($0.timeIntervalSince1970)) } ?? .null,
                "iat": .int(Int64(issuedAt.timeIntervalSince1970)), "jti": .string(jti),
                "events": .string(events),
            ], signingKey: signingKey)
        return ["payload": .string(token)]
    }
}

extension StubProviders {
    /// The control routes that give scripts what Apple and Kakao would send to the broker's webhooks:
    ///
    /// - `POST /apple/notifications {"type", "sub", "email"?, "jti"?, "ageSeconds"?}`: the body of a signed Apple
    ///   notification (`{"payload"}`), to post to `/v1/webhooks/apple`;
    /// - `POST /kakao/unlink-callback {"userId", "appId"?, "adminKey"?, "referrerType"?}`: `{"path", "headers",
    ///   "body"}` of Kakao's unlink callback, to send to the broker as given.
    func addWebhookSenderRoutes(_ router: inout Router) {
        router.add("POST", "/apple/notifications") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let type = body["type"]?.stringValue, let subject = body["sub"]?.stringValue else {
                return .json(400, .object(["error": "type and sub are required"]))
            }
            let age = TimeInterval(max(0, min(body["ageSeconds"]?.intValue ?? 0, 30 * 86_400)))
            return .json(
                200,
                try appleNotification(
                    type: type, subject: subject, email: body["email"]?.stringValue,
                    jti: body["jti"]?.stringValue ?? UUID().uuidString, issuedAt: Date().addingTimeInterval(-age)))
        }
        router.add("POST", "/kakao/unlink-callback") { request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let userID = body["userId"]?.intValue, userID > 0 else {
                return .json(400, .object(["error": "userId is required"]))
            }
            var callback = KakaoUnlinkCallback(userID: userID)
            if let appID = body["appId"]?.stringValue { callback.appID = appID }
            if let key = body["adminKey"]?.stringValue { callback.adminKey = key }
            if let referrer = body["referrerType"]?.stringValue { callback.referrerType = referrer }
            return .json(
                200,
                [
                    "path": .string(KakaoUnlinkCallback.path),
                    "headers": .object(callback.headers.mapValues(JSONValue.string)),
                    "body": .string(String(decoding: callback.body, as: UTF8.self)),
                ])
        }
    }
}
