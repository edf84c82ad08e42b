import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct KakaoSignInTests {
    @Test func anAccessTokenAndAnIDTokenReachTheSameAccount() async throws {
        try await withBroker { broker in
            let first = try await broker.kakaoSignIn(KakaoStubUser(id: 4_100_000_001, email: "k@example.kr", nickname: "서연"))
            #expect(first.status == 201)
            #expect(first.json?["user"]?["identities"]?.arrayValue?.first?["subject"] == "4100000001")
            #expect(first.json?["user"]?["displayName"] == "서연")
            let idToken = try broker.stubs.idToken(
                "kakao", claims: ["sub": "4100000001", "aud": .string(StubProviders.kakaoAudiences[1])])
            let second = try await broker.post("/v1/signin/kakao", ["idToken": .string(idToken)])
            #expect(second.status == 200)
            #expect(second.json?["user"]?["uid"] == first.json?["user"]?["uid"])
            #expect(try await broker.count("accounts") == 1)
        }
    }

    struct Fault: Sendable, CustomTestStringConvertible {
        var fault: KakaoFault
        var appID: Int64? = nil
        var status: Int
        var code: String
        var testDescription: String { "\(fault) \(appID.map(String.init) ?? "") -> \(code)" }
    }

    static let faults: [Fault] = [
        Fault(fault: .none, appID: 999_999, status: 401, code: "KAKAO_APP_MISMATCH"),
        Fault(fault: .invalidToken, status: 401, code: "INVALID_TOKEN"),
        Fault(fault: .userMismatch, status: 401, code: "INVALID_TOKEN"),
        Fault(fault: .misconfigured, status: 502, code: "PROVIDER_MISCONFIGURED"),
        Fault(fault: .down, status: 503, code: "PROVIDER_UNAVAILABLE"),
    ]

    @Test(arguments: faults)
    func kakaoFailuresMapToTheContractAndStoreNothing(_ fault: Fault) async throws {
        try await withBroker { broker in
            broker.stubs.setKakaoFault(fault.fault)
            var user = KakaoStubUser(id: 77, email: "k@example.kr")
            if let appID = fault.appID { user.appID = appID }
            let response = try await broker.kakaoSignIn(user)
            #expect(response.status == fault.status)
            #expect(response.errorCode == fault.code)
            if fault.status == 503 { #expect(response.headers["retry-after"] == "5") }
            #expect(try await broker.count("accounts") == 0)
            #expect(try await broker.count("refresh_tokens") == 0)
        }
    }

    @Test func aHangingKakaoTimesOutAsUnavailable() async throws {
        try await withBroker { broker in
            broker.stubs.setKakaoFault(.hang)
            let started = Date()
            let response = try await broker.kakaoSignIn(KakaoStubUser(id: 78))
            #expect(response.status == 503)
            #expect(response.errorCode == "PROVIDER_UNAVAILABLE")
            #expect(Date().timeIntervalSince(started) < 15)
            #expect(try await broker.count("accounts") == 0)
        }
    }

    @Test func slowKakaoSignInsDoNotHoldUpOthers() async throws {
        try await withBroker { broker in
            broker.stubs.setKakaoFault(.slow(milliseconds: 1000))
            let tokens = (0..<40).map { broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: 5000 + Int64($0))) }
            let order = OrderLog()
            let started = Date()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens {
                    group.addTask {
                        let response = try await broker.post("/v1/signin/kakao", ["accessToken": .string(token)])
                        #expect(response.status == 201)
                        order.append("kakao")
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(300))
                    let response = try await broker.googleSignIn(["sub": "g-fast"])
                    #expect(response.status == 201)
                    order.append("google")
                }
                try await group.waitForAll()
            }
            let elapsed = Date().timeIntervalSince(started)
            // Each Kakao sign-in makes two 1 s calls; forty of them in parallel take a few seconds, not 80.
            #expect(elapsed < 20)
            #expect(order.entries.first == "google")
            #expect(try await broker.count("accounts") == 41)
        }
    }
}

final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ entry: String) { lock.withLock { stored.append(entry) } }
    var entries: [String] { lock.withLock { stored } }
}
