@_exported import Foundation  // as the SDK's module does

public protocol ASAuthorizationCredential: NSObjectProtocol {}

public class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential {
    public var identityToken: Data? { nil }
    public var fullName: PersonNameComponents? { nil }
    public var authorizationCode: Data? { nil }
}

public class ASAuthorization: NSObject {
    public struct Scope: Hashable, Sendable {
        public let rawValue: String
        public static let fullName = Scope(rawValue: "full_name")
        public static let email = Scope(rawValue: "email")
    }
    public var credential: any ASAuthorizationCredential { ASAuthorizationAppleIDCredential() }
}

public class ASAuthorizationRequest: NSObject {}

public class ASAuthorizationOpenIDRequest: ASAuthorizationRequest {
    public var requestedScopes: [ASAuthorization.Scope]?
    public var nonce: String?
}

public class ASAuthorizationAppleIDRequest: ASAuthorizationOpenIDRequest {}

public class ASAuthorizationAppleIDProvider: NSObject {
    public override init() {}
    public func createRequest() -> ASAuthorizationAppleIDRequest { ASAuthorizationAppleIDRequest() }
}

@MainActor public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

extension ASAuthorizationControllerDelegate {
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {}
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {}
}

@MainActor public class ASAuthorizationController: NSObject {
    public weak var delegate: (any ASAuthorizationControllerDelegate)?
    public init(authorizationRequests: [ASAuthorizationRequest]) {}
    public func performRequests() {}
}
