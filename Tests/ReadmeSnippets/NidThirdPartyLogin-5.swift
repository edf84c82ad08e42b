@_exported import Foundation  // as the SDK's module does

public struct AccessToken: Codable {
    public let tokenString: String
    public let expiresAt: Date
    public init(expiresAt: Date, tokenString: String) {
        self.expiresAt = expiresAt
        self.tokenString = tokenString
    }
}

public struct RefreshToken: Codable {
    public let tokenString: String
    public init(tokenString: String) { self.tokenString = tokenString }
}

public struct LoginResult {
    public let accessToken: AccessToken
    public let refreshToken: RefreshToken
    public init(accessToken: AccessToken, refreshToken: RefreshToken) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}

public enum NidError: Error {
    case userCancel
}

public class NidOAuth {
    public typealias LoginResultCompletion = (Result<LoginResult, NidError>) -> Void
    public static let shared = NidOAuth()
    public var accessToken: AccessToken? { nil }
    public func initialize() {}
    public func requestLogin(callback: @escaping LoginResultCompletion) {}
    public func handleURL(_ url: URL) -> Bool { false }
    public func logout() {}
}
