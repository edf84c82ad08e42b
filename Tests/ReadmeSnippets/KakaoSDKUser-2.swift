@_exported import Foundation  // as the SDK's module does
import KakaoSDKAuth

public final class UserApi {
    public static let shared = UserApi()
    public static func isKakaoTalkLoginAvailable() -> Bool { false }
    public func loginWithKakaoTalk(nonce: String? = nil, completion: @escaping (OAuthToken?, Error?) -> Void) {}
    public func loginWithKakaoAccount(nonce: String? = nil, completion: @escaping (OAuthToken?, Error?) -> Void) {}
}
