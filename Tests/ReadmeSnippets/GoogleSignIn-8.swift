@_exported import Foundation  // as the SDK's module does
@_exported import UIKit  // as the SDK's Clang module re-exports UIKit

public class GIDToken: NSObject {
    public var tokenString: String { "" }
}

public class GIDGoogleUser: NSObject {
    public var idToken: GIDToken? { nil }
    public var accessToken: GIDToken { GIDToken() }
}

public class GIDSignInResult: NSObject {
    public var user: GIDGoogleUser { GIDGoogleUser() }
}

public class GIDSignIn: NSObject {
    public class var sharedInstance: GIDSignIn { GIDSignIn() }
    public func signIn(withPresenting presentingViewController: UIViewController) async throws -> GIDSignInResult {
        GIDSignInResult()
    }
}
