@_exported import Foundation  // as the SDK's module does

public class OAuthToken: Codable {
    public let accessToken: String
    public let idToken: String?
    public init(accessToken: String, idToken: String?) {
        self.accessToken = accessToken
        self.idToken = idToken
    }
}
