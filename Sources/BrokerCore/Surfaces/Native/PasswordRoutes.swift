extension NativeSurface {
    func mountPasswords(_ router: inout Router) {
        router.add("POST", "/v1/signup") { [services] request, context in
            let body = try NativeBody(request)
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
