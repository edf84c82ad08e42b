import BrokerCore
import BrokerModel
extension NativeSurface {
    func mountPasswords(_ router: inout Router) {
        router.add("POST", "/v1/signup") { [services] request, context in
            let body = try NativeBody(request)
            // With a guest's ID token, the guest's upgrade in place (contract section 13).
            if request.headers["authorization"] != nil {
                let guest = try await NativeSurface.authenticateUser(request, services)
                let upgraded = try await services.signIn.upgrade(
                    guest, email: try body.string("email"), password: try body.string("password"),
                    displayName: try body.optionalString("displayName"), requestID: context.requestID)
                return .json(200, upgraded.tokens.body(user: upgraded.account, isNewUser: false))
            }
            let result = try await services.signIn.signUp(
                email: try body.string("email"), password: try body.string("password"),
                displayName: try body.optionalString("displayName"), requestID: context.requestID)
            return .json(201, result.tokens.body(user: result.account, isNewUser: true))
        }
        router.add("POST", "/v1/signin/password") { [services] request, context in
            let body = try NativeBody(request)
            let result = try await services.signIn.signIn(
                email: try body.string("email"), password: try body.string("password"), requestID: context.requestID)
            return .json(200, result.tokens.body(user: result.account, isNewUser: false))
        }
    }
}
