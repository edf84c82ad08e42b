import BrokerCore
import BrokerModel
import Foundation
import Testing

/// What an audit event keeps of a request's origin: the client's text, cleaned and bounded.
@Suite struct RequestOriginTests {
    @Test func emptyValuesAreAbsent() {
        let origin = RequestOrigin(clientAddress: "", userAgent: "")
        #expect(origin.clientAddress == nil)
        #expect(origin.userAgent == nil)
        #expect(RequestOrigin(clientAddress: nil, userAgent: "\u{7}\u{1B}").userAgent == nil)
    }

    @Test func userAgentsLoseControlAndFormatCharactersAndAreCut() {
        let agent = RequestOrigin(clientAddress: "127.0.0.1", userAgent: "App/1\r\nX-Evil: 1\u{202E}\u{0}").userAgent
        #expect(agent == "App/1X-Evil: 1")
        let long = String(repeating: "가", count: RequestOrigin.maximumUserAgentLength + 10)
        #expect(RequestOrigin(clientAddress: nil, userAgent: long).userAgent?.count == RequestOrigin.maximumUserAgentLength)
    }

    @Test func eventsTakeTheOriginOfTheRequestBeingHandled() async {
        let origin = RequestOrigin(clientAddress: "198.51.100.1", userAgent: "UA")
        let inside = RequestOrigin.$current.withValue(origin) {
            AuditEvent(time: .now, uid: nil, action: .signIn, actor: .user, requestID: "r")
        }
        #expect(inside.clientAddress == "198.51.100.1")
        #expect(inside.userAgent == "UA")
        let outside = AuditEvent(time: .now, uid: nil, action: .disable, actor: .admin, requestID: "cli")
        #expect(outside.clientAddress == nil && outside.userAgent == nil)
    }
}
