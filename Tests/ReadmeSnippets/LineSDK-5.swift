@_exported import Foundation  // as the SDK's module does
import UIKit

public struct LoginPermission: Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let openID = LoginPermission(rawValue: "openid")
    public static let profile = LoginPermission(rawValue: "profile")
    public static let email = LoginPermission(rawValue: "email")
}

public struct AccessToken {
    public let value: String
    public let IDTokenRaw: String?
}

public struct LoginResult {
    public let accessToken: AccessToken
    public let permissions: Set<LoginPermission>
    public let IDTokenNonce: String?
}

public enum LineSDKError: Error {
    case generalError
}

public class LoginProcess {}

public class LoginManager {
    public struct Parameters {
        public var onlyWebLogin = false
        public var IDTokenNonce: String?
        public init() {}
    }

    public static let shared = LoginManager()
    public func setup(channelID: String, universalLinkURL: URL?) {}

    @discardableResult
    public func login(
        permissions: Set<LoginPermission> = [.profile], in viewController: UIViewController? = nil,
        parameters: Parameters = Parameters(),
        completionHandler completion: @escaping (Result<LoginResult, LineSDKError>) -> Void
    ) -> LoginProcess? { nil }
}
