import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct NaverSignInTests {
    @Test func aFirstSignInCreatesTheAccountAndTheSecondFindsIt() async throws {
        try await withBroker { broker in
            let user = NaverStubUser(
                id: "32742776", email: "jimin@naver.com", nickname: "지민", name: "박지민",
                profileImage: "https://phinf.pstatic.net/contact/p.png")
            let first = try await broker.naverSignIn(user)
            #expect(first.status == 201)
            let account = try #require(first.json?["user"])
            #expect(account["identities"]?.arrayValue?.first?["provider"] == "naver")
            #expect(account["identities"]?.arrayValue?.first?["subject"] == "32742776")
            #expect(account["displayName"] == "지민")
            #expect(account["photoUrl"] == "https://phinf.pstatic.net/contact/p.png")
            #expect(account["emailVerified"] == false)
            let second = try await broker.naverSignIn(user)
            #expect(second.status == 200)
            #expect(second.uid == first.uid)
            #expect(try await broker.count("accounts") == 1)
            #expect(try await broker.count("refresh_tokens") == 2)
        }
    }

    @Test func aTokenOfAnotherAppNamesAnotherUserAndNeverReachesOurs() async throws {
        try await withBroker { broker in
            let ours = try await broker.naverSignIn(NaverStubUser(id: "32742776", email: "jimin@naver.com"))
            #expect(ours.status == 201)
            // Naver's ids are per app: the same person's token for another app names another id.
            let theirs = try await broker.naverSignIn(NaverStubUser(id: "other-app-991", email: "jimin@naver.com"))
            #expect(theirs.status == 201)
            #expect(theirs.uid != ours.uid)
            #expect(try await broker.isLinked("naver", "32742776"))
            #expect(try await broker.count("identities") == 2)
        }
    }

    @Test(arguments: [false, true])
    func aNaverEmailNeverLinksToAnAccountWithThatEmail(byVerifiedEmail: Bool) async throws {
        try await withBroker(linkByVerifiedEmail: byVerifiedEmail) { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "jimin@naver.com", "email_verified": true])
            #expect(google.status == 201)
            let naver = try await broker.naverSignIn(NaverStubUser(id: "32742776", email: "jimin@naver.com"))
            #expect(naver.status == 201)
            #expect(naver.uid != google.uid)
            #expect(naver.json?["user"]?["emailVerified"] == false)
            let stored = try #require(try await broker.store.account(provider: ProviderID("google"), subject: "g-1"))
            #expect(stored.identities.count == 1)
        }
    }

    struct Fault: Sendable, CustomTestStringConvertible {
        var fault: StubFault
        var status: Int
        var code: String
        var testDescription: String { "\(fault) -> \(code)" }
    }

    static let faults: [Fault] = [
        Fault(fault: .refusing, status: 401, code: "INVALID_TOKEN"),
        Fault(fault: .misconfigured, status: 502, code: "PROVIDER_MISCONFIGURED"),
        Fault(fault: .down, status: 503, code: "PROVIDER_UNAVAILABLE"),
    ]

    @Test(arguments: faults)
    func naverFailuresMapToTheContractAndStoreNothing(_ fault: Fault) async throws {
        try await withBroker { broker in
            broker.stubs.setFault("naver", fault.fault)
            let response = try await broker.naverSignIn(NaverStubUser(id: "1", email: "a@naver.com"))
            #expect(response.status == fault.status)
            #expect(response.errorCode == fault.code)
            if fault.status == 503 { #expect(response.headers["retry-after"] == "5") }
            try await broker.expectNothingStored()
        }
    }

    @Test func anUnknownTokenIsInvalidAndAHangingNaverIsUnavailable() async throws {
        try await withBroker { broker in
            let unknown = try await broker.post("/v1/signin/naver", ["accessToken": "AAAAN-not-issued"])
            #expect(unknown.status == 401)
            #expect(unknown.errorCode == "INVALID_TOKEN")
            broker.stubs.setFault("naver", .hang)
            let hanging = try await broker.naverSignIn(NaverStubUser(id: "2"))
            #expect(hanging.status == 503)
            #expect(hanging.errorCode == "PROVIDER_UNAVAILABLE")
            try await broker.expectNothingStored()
        }
    }

    @Test func aTokenThatCannotBeABearerTokenNeverReachesNaver() async throws {
        try await withBroker { broker in
            let response = try await broker.post("/v1/signin/naver", ["accessToken": "abc\r\nX-Injected: 1"])
            #expect(response.status == 401)
            #expect(response.errorCode == "INVALID_TOKEN")
            #expect(broker.stubs.callCount("naver") == 0)
            let idToken = try await broker.post("/v1/signin/naver", ["idToken": "eyJ.x.y"])
            #expect(idToken.status == 400)
            #expect(idToken.errorCode == "INVALID_REQUEST")
            try await broker.expectNothingStored()
        }
    }
}
