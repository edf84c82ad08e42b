import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The 1e17 Apple token of issue 10 (item 5) through the app's handler over the memory store.
@Suite struct HostileTokenInProcessTests {
    @Test(arguments: ["exp", "iat", "nbf", "auth_time"], [JSONValue.double(1e17), .double(-1), "soon"])
    func anAppleTokenWithAHostileTimeStoresNothing(_ claim: String, _ value: JSONValue) async throws {
        let broker = try await InProcessBroker.start()
        let token = try broker.stubs.idToken(
            "apple", claims: ["sub": "001.hostile", "nonce": .string(TestTokens.hashedNonce("n")), claim: value])
        let response = await broker.post("/v1/signin/apple", ["identityToken": .string(token), "rawNonce": "n"])
        #expect(response.status == 401)
        #expect(response.errorCode == "INVALID_TOKEN")
        #expect(await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 10).isEmpty)
        // No single-use mark either: purging everything removes nothing.
        #expect(await broker.store.purgeExpired(before: Date(timeIntervalSince1970: 1e300)) == 0)
    }
}
