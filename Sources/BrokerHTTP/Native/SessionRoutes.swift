import BrokerCore
import BrokerModel
extension NativeSurface {
    func mountSessions(_ router: inout Router) {
        router.add("POST", "/v1/token") { [services] request, _ in
            let token = try NativeBody(request).credential("refreshToken")
            let (account, tokens) = try await services.sessions.refresh(token)
            return .json(200, tokens.body(user: account, isNewUser: false))
        }
        router.add("POST", "/v1/signout") { [services] request, context in
            let token = try NativeBody(request).credential("refreshToken")
            if let uid = try await services.sessions.signOut(token) {
                await services.audit(.signOut, uid: uid, context: context)
            }
            return HTTPResponse(status: 204)
        }
    }
}
