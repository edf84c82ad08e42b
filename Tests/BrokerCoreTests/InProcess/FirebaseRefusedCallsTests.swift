import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The four of the iOS SDK's 24 calls the listener does not serve (docs/firebase.md): the three of phone sign-in
/// and Game Center's, each `OPERATION_NOT_ALLOWED` on its legacy v3 name (the iOS SDK's) and its v1 name, storing
/// nothing.
@Suite struct FirebaseRefusedCallsTests {
    @Test(arguments: [
        "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode",
        "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber",
        "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyClient",
        "/www.googleapis.com/identitytoolkit/v3/relyingparty/signInWithGameCenter",
        "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode",
        "/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber",
        "/identitytoolkit.googleapis.com/v1/accounts:signInWithGameCenter",
    ])
    func aPhoneOrGameCenterCallIsOperationNotAllowed(_ path: String) async throws {
        let broker = try await InProcessBroker.start()
        let response = await broker.firebasePost(
            path + "?key=k",
            ["phoneNumber": "+15555550100", "playerID": "G:1", "appToken": "00", "sessionInfo": "s", "code": "123456"])
        #expect(response.status == 400)
        #expect(response.json?["error"]?["message"]?.stringValue?.hasPrefix("OPERATION_NOT_ALLOWED") == true)
        #expect(await broker.store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)
        #expect(await broker.store.account(phoneNumber: "+15555550100") == nil)
    }
}
