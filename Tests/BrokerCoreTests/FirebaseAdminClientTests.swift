import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Revoking a uid's Firebase sessions (contract section 2) against the stubbed token endpoint and admin API.
@Suite struct FirebaseAdminClientTests {
    static func client(_ stubs: StubProviders, clock: any Clock = SystemClock()) throws -> FirebaseAdminClient {
        let file = try TestServiceAccount.json(tokenURI: InProcessBroker.stubsBaseURL + StubFirebase.tokenPath)
        let account = try FirebaseServiceAccount(parsing: file.serialized(), allowInsecureURLs: true)
        return FirebaseAdminClient(
            account: account, projectID: "stub-project", apiBaseURL: InProcessBroker.stubsBaseURL + StubFirebase.apiPath,
            client: stubs.inProcessClient(), clock: clock)
    }

    @Test func aRevocationReachesFirebaseWithWholeSecondsAndOneAccessToken() async throws {
        let stubs = try StubProviders()
        let client = try Self.client(stubs)
        try await client.revokeSessions(uid: AccountID("uid-1"), validSince: Date(timeIntervalSince1970: 1_800_000_000.9))
        try await client.revokeSessions(uid: AccountID("uid-2"), validSince: Date(timeIntervalSince1970: 1_800_000_001))
        #expect(stubs.firebase.revocations == [
            StubFirebase.Revocation(project: "stub-project", uid: "uid-1", validSince: "1800000000"),
            StubFirebase.Revocation(project: "stub-project", uid: "uid-2", validSince: "1800000001"),
        ])
        #expect(stubs.firebase.tokenRequestCount == 1)
    }

    @Test func anAccessTokenNearItsExpiryIsReplaced() async throws {
        let stubs = try StubProviders()
        let clock = ManualClock(Date())
        let client = try Self.client(stubs, clock: clock)
        try await client.revokeSessions(uid: AccountID("uid-1"), validSince: clock.now)
        clock.advance(by: 3599 - 59)
        try await client.revokeSessions(uid: AccountID("uid-1"), validSince: clock.now)
        #expect(stubs.firebase.tokenRequestCount == 2)
        #expect(stubs.firebase.revocations.count == 2)
    }

    @Test(arguments: [
        (StubFirebase.Fault.down, FirebaseAdminError.Code.unavailable),
        (.tokenEndpointDown, .unavailable),
        (.refusing, .refused),
    ])
    func failuresAreTransientOrPermanent(_ fault: StubFirebase.Fault, _ expected: FirebaseAdminError.Code) async throws {
        let stubs = try StubProviders()
        stubs.firebase.setFault(fault)
        let client = try Self.client(stubs)
        let error = await #expect(throws: FirebaseAdminError.self) {
            try await client.revokeSessions(uid: AccountID("uid-1"), validSince: Date())
        }
        #expect(error?.code == expected)
        #expect(stubs.firebase.revocations.isEmpty)
    }

    @Test func anAssertionSignedByAnotherKeyGetsNoAccessToken() async throws {
        let stubs = try StubProviders()
        var file = try TestServiceAccount.json(tokenURI: InProcessBroker.stubsBaseURL + StubFirebase.tokenPath)
        if case .object(var members) = file {
            members["private_key"] = .string(try StubKeySet.strangerKey(6).pemPKCS8())
            file = .object(members)
        }
        let client = FirebaseAdminClient(
            account: try FirebaseServiceAccount(parsing: file.serialized(), allowInsecureURLs: true),
            projectID: "stub-project", apiBaseURL: InProcessBroker.stubsBaseURL + StubFirebase.apiPath,
            client: stubs.inProcessClient(), clock: SystemClock())
        let error = await #expect(throws: FirebaseAdminError.self) {
            try await client.revokeSessions(uid: AccountID("uid-1"), validSince: Date())
        }
        #expect(error?.code == .refused)
        #expect(stubs.firebase.revocations.isEmpty)
    }

    @Test func aTokenURIMustBeHTTPSUnlessInsecureURLsAreAllowed() throws {
        let file = try TestServiceAccount.json(tokenURI: "http://127.0.0.1:9/token")
        #expect(throws: ConfigError.self) { try FirebaseServiceAccount(parsing: file.serialized()) }
        _ = try FirebaseServiceAccount(parsing: file.serialized(), allowInsecureURLs: true)
    }
}
