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

// Passkeys (iOS 15+): the platform provider, its requests and its two answers.

public protocol ASAuthorizationProvider: NSObjectProtocol {}

public protocol ASPublicKeyCredential: ASAuthorizationCredential {
    var rawClientDataJSON: Data { get }
    var credentialID: Data { get }
}

public protocol ASAuthorizationPublicKeyCredentialRegistration: ASPublicKeyCredential {
    var rawAttestationObject: Data? { get }
}

public protocol ASAuthorizationPublicKeyCredentialAssertion: ASPublicKeyCredential {
    var rawAuthenticatorData: Data! { get }
    var userID: Data! { get }
    var signature: Data! { get }
}

public class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationPublicKeyCredentialRegistration {
    public var rawClientDataJSON: Data { Data() }
    public var credentialID: Data { Data() }
    public var rawAttestationObject: Data? { nil }
}

public class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationPublicKeyCredentialAssertion {
    public var rawClientDataJSON: Data { Data() }
    public var credentialID: Data { Data() }
    public var rawAuthenticatorData: Data! { nil }
    public var userID: Data! { nil }
    public var signature: Data! { nil }
}

public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static let preferred = ASAuthorizationPublicKeyCredentialUserVerificationPreference("preferred")
    public static let required = ASAuthorizationPublicKeyCredentialUserVerificationPreference("required")
    public static let discouraged = ASAuthorizationPublicKeyCredentialUserVerificationPreference("discouraged")
}

public protocol ASAuthorizationPublicKeyCredentialDescriptor: NSObjectProtocol {
    var credentialID: Data { get set }
}

public class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject, ASAuthorizationPublicKeyCredentialDescriptor {
    public var credentialID: Data
    public init(credentialID: Data) { self.credentialID = credentialID }
}

public protocol ASAuthorizationPublicKeyCredentialRegistrationRequest: NSObjectProtocol {
    var relyingPartyIdentifier: String { get }
    var userID: Data { get set }
    var name: String { get set }
    var displayName: String? { get set }
    var challenge: Data { get set }
    var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }
}

public protocol ASAuthorizationPublicKeyCredentialAssertionRequest: NSObjectProtocol {
    var challenge: Data { get set }
    var relyingPartyIdentifier: String { get set }
    var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }
}

public class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest, ASAuthorizationPublicKeyCredentialRegistrationRequest {
    public var relyingPartyIdentifier: String { "" }
    public var userID = Data()
    public var name = ""
    public var displayName: String?
    public var challenge = Data()
    public var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
}

public class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest, ASAuthorizationPublicKeyCredentialAssertionRequest {
    public var challenge = Data()
    public var relyingPartyIdentifier = ""
    public var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
    public var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
}

public class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider {
    public let relyingPartyIdentifier: String
    public init(relyingPartyIdentifier: String) { self.relyingPartyIdentifier = relyingPartyIdentifier }
    public func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data) -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest()
    }
    public func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        ASAuthorizationPlatformPublicKeyCredentialAssertionRequest()
    }
}
