import BrokerCore
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
