/// The apps' API under `/v1` (contract sections 2 to 4): sign-in, sessions, passwords, the signed-in user.
public struct NativeSurface: Surface {
    let services: BrokerServices

    /// Creates the surface.
    public init(services: BrokerServices) { self.services = services }

    /// Adds the `/v1` routes.
    public func mount(on router: inout Router) {
        mountSignIn(&router)
        mountSessions(&router)
        mountPasswords(&router)
        mountMe(&router)
    }

    /// The contract's error body; the cause of a 5xx or a refused token is logged.
    public func render(_ error: any Error) -> RenderedError {
        NativeSurface.render(error)
    }

    /// The native rendering of `error`, shared with the surfaces that answer in the same dialect (admin,
    /// operations).
    static func render(_ error: any Error) -> RenderedError {
        guard let mapped = APIError.mapping(error) else {
            return RenderedError(response: APIError.internalError.response, cause: "\(error)")
        }
        let logged = mapped.status >= 500 || error is TokenError || error is ProviderError
        return RenderedError(response: mapped.response, cause: logged ? "\(error)" : nil)
    }
}
