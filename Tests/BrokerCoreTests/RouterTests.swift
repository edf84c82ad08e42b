import BrokerCore
import BrokerHTTP
import BrokerModel
import Testing

@Suite struct RouterTests {
    @Test func literalSegmentsWinOverParametersWhateverTheOrder() {
        var router = Router()
        router.add("POST", "/v1/signin/{provider}") { _, _ in HTTPResponse(status: 1) }
        router.add("POST", "/v1/signin/password") { _, _ in HTTPResponse(status: 2) }
        #expect(router.match(method: "POST", path: "/v1/signin/password")?.route.pattern == "/v1/signin/password")
        let google = router.match(method: "POST", path: "/v1/signin/google")
        #expect(google?.route.pattern == "/v1/signin/{provider}")
        #expect(google?.parameters["provider"] == "google")
        #expect(router.match(method: "GET", path: "/v1/signin/google") == nil)
        #expect(router.match(method: "POST", path: "/v1/signin") == nil)
        #expect(router.match(method: "POST", path: "/v1/signin/google/extra") == nil)
    }

    @Test func theWinnersParametersOnlyAndALiteralAfterAParameterMustMatch() {
        var router = Router()
        router.add("DELETE", "/v1/admin/accounts/{uid}/identities/{provider}") { _, _ in HTTPResponse(status: 1) }
        router.add("DELETE", "/v1/admin/accounts/{account}/sessions/{session}") { _, _ in HTTPResponse(status: 2) }
        router.add("DELETE", "/v1/admin/accounts/{uid}/sessions/all") { _, _ in HTTPResponse(status: 3) }
        let unlink = router.match(method: "DELETE", path: "/v1/admin/accounts/u1/identities/google")
        #expect(unlink?.route.pattern == "/v1/admin/accounts/{uid}/identities/{provider}")
        #expect(unlink?.parameters == ["uid": "u1", "provider": "google"])
        let all = router.match(method: "DELETE", path: "/v1/admin/accounts/u2/sessions/all")
        #expect(all?.route.pattern == "/v1/admin/accounts/{uid}/sessions/all")
        #expect(all?.parameters == ["uid": "u2"])
        let one = router.match(method: "DELETE", path: "/v1/admin/accounts/u3/sessions/s9")
        #expect(one?.parameters == ["account": "u3", "session": "s9"])
        #expect(router.match(method: "DELETE", path: "/v1/admin/accounts/u1/tokens/google") == nil)
    }
}

@Suite struct RouterEndpointsTests {
    @Test func endpointsListEveryRouteInOrderWithItsPattern() {
        var router = Router()
        router.add("POST", "/v1/signin/{provider}") { _, _ in HTTPResponse(status: 1) }
        router.add("GET", "/healthz") { _, _ in HTTPResponse(status: 2) }
        #expect(
            router.endpoints.map { "\($0.method) \($0.pattern)" } == ["POST /v1/signin/{provider}", "GET /healthz"])
    }
}
