@_exported import Foundation  // as the SDK's module does

open class User: NSObject {
    open var uid: String { "" }
}

open class AuthDataResult: NSObject {
    open var user: User { User() }
}

open class Auth: NSObject {
    open class func auth() -> Auth { Auth() }
    open var currentUser: User? { nil }
    @discardableResult open func signIn(withCustomToken token: String) async throws -> AuthDataResult { AuthDataResult() }
    open func signOut() throws {}
}
