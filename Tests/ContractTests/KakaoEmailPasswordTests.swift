import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The `email-password` mapping: apps that bridged Kakao into Firebase email/password accounts.
@Suite struct KakaoEmailPasswordTests {
    func withMapping(_ body: (BrokerHarness) async throws -> Void) async throws {
        try await withBroker(kakaoMapping: "email-password", body)
    }

    @Test func aNewKakaoUserGetsAnAccountWithNoPasswordAtAll() async throws {
        try await withMapping { broker in
            let first = try await broker.kakaoSignIn(KakaoStubUser(id: 4242, email: "kim@example.kr"))
            #expect(first.status == 201)
            let uid = try #require(first.json?["user"]?["uid"]?.stringValue)
            let account = try #require(try await broker.store.account(id: AccountID(uid)))
            #expect(account.password?.hash == nil)
            #expect(account.password?.isDerived != true)
            for password in ["4242", "Optional(4242)"] {
                let attempt = try await broker.post("/v1/signin/password", ["email": "kim@example.kr", "password": .string(password)])
                #expect(attempt.errorCode == "INVALID_LOGIN_CREDENTIALS")
            }
            let again = try await broker.kakaoSignIn(KakaoStubUser(id: 4242, email: "kim@example.kr"))
            #expect(again.status == 200)
            #expect(again.json?["user"]?["uid"]?.stringValue == uid)
        }
    }

    /// A look-alike made through `/v1/signup` with the (public) Kakao id as its password is never matched as the
    /// workaround's account: Kakao vouches for the email, the account never proved it, so the owner takes it over
    /// (its uid kept; the password and every session gone).
    @Test(arguments: ["4100005151", "Optional(4100005151)"])
    func aLookAlikeSignUpIsTakenOverNotLinked(_ storedPassword: String) async throws {
        try await withMapping { broker in
            let lookAlike = try await broker.post("/v1/signup", ["email": "lee@example.kr", "password": .string(storedPassword)])
            let uid = try #require(lookAlike.json?["user"]?["uid"]?.stringValue)
            let squattersRefresh = try #require(lookAlike.json?["refreshToken"]?.stringValue)
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 4_100_005_151, email: "Lee@example.kr"))
            #expect(kakao.status == 200)
            #expect(kakao.json?["user"]?["uid"]?.stringValue == uid)
            #expect(try await broker.isLinked("kakao", "4100005151"))
            let account = try #require(try await broker.store.account(id: AccountID(uid)))
            #expect(account.password?.hash == nil)
            let events = try await broker.store.auditEvents(uid: AccountID(uid), before: nil, limit: 10).map(\.action.rawValue)
            #expect(events.contains("take_over"))
            #expect(!events.contains("link"))
            let retired = try await broker.post("/v1/signin/password", ["email": "lee@example.kr", "password": .string(storedPassword)])
            #expect(retired.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await broker.post("/v1/token", ["refreshToken": .string(squattersRefresh)]).errorCode == "INVALID_REFRESH_TOKEN")
        }
    }

    /// Without Kakao vouching for the email, a look-alike is neither linked nor taken over.
    @Test func aLookAlikeIsNotTouchedWhenKakaoDoesNotVouchForTheEmail() async throws {
        try await withMapping { broker in
            _ = try await broker.post("/v1/signup", ["email": "han@example.kr", "password": "4100007777"])
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 4_100_007_777, email: "han@example.kr", emailVerified: false))
            #expect(kakao.status == 409)
            #expect(kakao.errorCode == "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL")
            #expect(kakao.json?["error"]?["existingProviders"] == ["password"])
            #expect(try await broker.isLinked("kakao", "4100007777") == false)
            #expect(try await broker.count("accounts") == 1)
            let stillWorks = try await broker.post("/v1/signin/password", ["email": "han@example.kr", "password": "4100007777"])
            #expect(stillWorks.status == 200)
        }
    }

    @Test func anAccountPreparedWithTheVictimsPublicIdLosesWhatItsMakerLinked() async throws {
        try await withMapping { broker in
            // The attacker signs up with the victim's email and Kakao id (no secret), then adds their own Google.
            let attacker = try await broker.post("/v1/signup", ["email": "victim@example.kr", "password": "4100009999"])
            let idToken = try #require(attacker.json?["idToken"]?.stringValue)
            let google = try broker.stubs.idToken("google", claims: ["sub": "attacker-google"])
            let linked = try await broker.post(
                "/v1/me/identities/google", ["idToken": .string(google)], headers: ["Authorization": "Bearer \(idToken)"])
            #expect(linked.status == 200)
            let victim = try await broker.kakaoSignIn(KakaoStubUser(id: 4_100_009_999, email: "victim@example.kr"))
            #expect(victim.status == 200)
            #expect(try await broker.isLinked("kakao", "4100009999"))
            #expect(try await broker.isLinked("google", "attacker-google") == false)
            #expect(try await broker.get("/v1/me", headers: ["Authorization": "Bearer \(idToken)"]).status == 401)
        }
    }

    @Test func anAccountWithAProvenEmailConflicts() async throws {
        try await withMapping { broker in
            let signUp = try await broker.post("/v1/signup", ["email": "park@example.kr", "password": "a-real-secret"])
            let uid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
            _ = try await broker.store.update(id: AccountID(uid)) { $0.emailVerified = true }
            let response = try await broker.kakaoSignIn(KakaoStubUser(id: 6161, email: "park@example.kr"))
            #expect(response.status == 409)
            #expect(response.errorCode == "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL")
            #expect(response.json?["error"]?["existingProviders"] == ["password"])
            #expect(try await broker.isLinked("kakao", "6161") == false)
            let stillWorks = try await broker.post("/v1/signin/password", ["email": "park@example.kr", "password": "a-real-secret"])
            #expect(stillWorks.status == 200)
        }
    }

    @Test func aKakaoAccountWithoutEmailIsRefused() async throws {
        try await withMapping { broker in
            let response = try await broker.kakaoSignIn(KakaoStubUser(id: 7171, email: nil))
            #expect(response.status == 400)
            #expect(response.errorCode == "KAKAO_EMAIL_REQUIRED")
            #expect(try await broker.count("accounts") == 0)
        }
    }
}
