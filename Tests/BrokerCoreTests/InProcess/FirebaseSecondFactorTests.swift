import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The compatibility listener's MFA protocol for TOTP (contract sections 11 and 14), by replays of the requests
/// firebase-ios-sdk builds (`Backend/RPC/MultiFactor/`: v2 `mfaEnrollment:start`, `:finalize`, `:withdraw`,
/// `mfaSignIn:finalize`) and of its first-factor and lookup calls: the status, the fields its response types read,
/// the ID token's `firebase.sign_in_second_factor` and the state after.
@Suite struct FirebaseSecondFactorTests {
    static let v2 = "/identitytoolkit.googleapis.com/v2/accounts/"

    static func v2(_ broker: InProcessBroker, _ verb: String, _ body: JSONValue) async -> TestResponse {
        await broker.firebase(
            "POST", v2 + verb + "?key=AIzaSyTestKey", json: body, headers: FirebaseClientAPITests.iOSHeaders)
    }

    static func claims(_ response: TestResponse) throws -> [String: JSONValue] {
        try JWT(parsing: try #require(response.json?["idToken"]?.stringValue)).claims
    }

    @Test func enrolmentSignInLookupAndWithdrawalOverTheListener() async throws {
        let (broker, clock) = try await SecondFactorTests.start()
        let signUp = await FirebaseClientAPITests.iOS(
            broker, "signupNewUser", ["email": "fb@example.com", "password": "secret-1", "returnSecureToken": true])
        let idToken = try #require(signUp.json?["idToken"]?.stringValue)
        let uid = AccountID(try #require(signUp.json?["localId"]?.stringValue))

        let phone = await Self.v2(
            broker, "mfaEnrollment:start", ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+1"]])
        #expect(phone.status == 400 && FirebaseClientAPITests.code(phone) == "OPERATION_NOT_ALLOWED")
        let started = await Self.v2(
            broker, "mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
        #expect(started.status == 200)
        let session = try #require(started.json?["totpSessionInfo"])
        let secret = try #require(session["sharedSecretKey"]?.stringValue)
        #expect(session["verificationCodeLength"] == 6 && session["periodSec"] == 30)
        #expect(session["hashingAlgorithm"] == "SHA1")
        let finalized = await Self.v2(
            broker, "mfaEnrollment:finalize",
            [
                "idToken": .string(idToken), "displayName": "Phone",
                "totpVerificationInfo": [
                    "sessionInfo": .string(try #require(session["sessionInfo"]?.stringValue)),
                    "verificationCode": .string(try SecondFactorTests.code(secret, clock)),
                ],
            ])
        #expect(finalized.status == 200 && finalized.json?["refreshToken"]?.stringValue != nil)
        let factorID = try #require(await broker.store.secondFactors(uid: uid).first?.id)

        let lookup = await FirebaseClientAPITests.iOS(broker, "getAccountInfo", ["idToken": .string(idToken)])
        let info = lookup.json?["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first
        #expect(info?["mfaEnrollmentId"]?.stringValue == factorID && info?["displayName"] == "Phone")
        #expect(info?["totpInfo"] != nil)

        clock.advance(by: 30)
        let held = await FirebaseClientAPITests.iOS(
            broker, "verifyPassword", ["email": "fb@example.com", "password": "secret-1", "returnSecureToken": true])
        #expect(held.status == 200 && held.json?["idToken"] == nil)
        let pending = try #require(held.json?["mfaPendingCredential"]?.stringValue)
        #expect(held.json?["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"]?.stringValue == factorID)
        // A pending sign-in of the listener is not finished on the native API.
        let native = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(pending), "factorId": .string(factorID),
                "code": .string(try SecondFactorTests.code(secret, clock)),
            ])
        #expect(native.status == 401 && native.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")

        let wrong = await Self.v2(
            broker, "mfaSignIn:finalize",
            [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(factorID),
                "totpVerificationInfo": ["verificationCode": "000000"],
            ])
        #expect(wrong.status == 400 && FirebaseClientAPITests.code(wrong) == "INVALID_VERIFICATION_CODE")
        let done = await Self.v2(
            broker, "mfaSignIn:finalize",
            [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(factorID),
                "totpVerificationInfo": ["verificationCode": .string(try SecondFactorTests.code(secret, clock))],
            ])
        #expect(done.status == 200)
        let claims = try Self.claims(done)
        #expect(claims["firebase"]?["sign_in_second_factor"] == "totp")
        #expect(claims["firebase"]?["second_factor_identifier"]?.stringValue == factorID)
        #expect(claims["firebase"]?["sign_in_provider"] == "password")
        #expect(claims["mfa"] == nil)

        let withdrawn = await Self.v2(
            broker, "mfaEnrollment:withdraw",
            [
                "idToken": .string(try #require(done.json?["idToken"]?.stringValue)),
                "mfaEnrollmentId": .string(factorID),
            ])
        #expect(withdrawn.status == 200 && withdrawn.json?["idToken"]?.stringValue != nil)
        #expect(await broker.store.secondFactors(uid: uid).isEmpty)
        let again = await FirebaseClientAPITests.iOS(
            broker, "verifyPassword", ["email": "fb@example.com", "password": "secret-1", "returnSecureToken": true])
        #expect(again.status == 200 && again.json?["idToken"]?.stringValue != nil)
    }

    /// A sign-in held on the native API, finished on the listener: `INVALID_MFA_PENDING_CREDENTIAL` whatever the
    /// code, since the listener is checked before the code (no oracle), and no wrong code is counted: after six
    /// tries, the native API still finishes it with the right code.
    @Test func aNativePendingCredentialIsRefusedBeforeItsCodeIsLookedAt() async throws {
        let (broker, clock) = try await SecondFactorTests.start()
        let user = try await SecondFactorTests.enrolled(broker, clock, "held-native@example.com")
        let pending = try SecondFactorTests.pending(await SecondFactorTests.signIn(broker, "held-native@example.com"))
        let right = try SecondFactorTests.code(user.secret, clock)
        for code in [right, "000000", right, "123456", right, "654321"] {
            let finalized = await Self.v2(
                broker, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(user.factorID),
                    "totpVerificationInfo": ["verificationCode": .string(code)],
                ])
            #expect(finalized.status == 400)
            #expect(FirebaseClientAPITests.code(finalized) == "INVALID_MFA_PENDING_CREDENTIAL")
        }
        #expect(await SecondFactorTests.liveSessions(broker, user.uid) == 1)  // the enrolment's only
        let done = await broker.post(
            "/v1/signin/mfa",
            ["mfaPendingCredential": .string(pending), "factorId": .string(user.factorID), "code": .string(right)])
        #expect(done.status == 200)
        #expect(try SecondFactorTests.claims(done)["mfa"] == "totp")
    }

    /// The Admin SDK's `list_users` (`accounts:batchGet`), `get_user` (`accounts:lookup`) and `accounts:query`
    /// list a user's TOTP factors in `mfaInfo`, as the client's `lookup` does; a user without one has none.
    @Test func theAdminCallsListSecondFactors() async throws {
        let (broker, clock) = try await SecondFactorTests.start()
        let user = try await SecondFactorTests.enrolled(broker, clock, "listed@example.com")
        let plain = await broker.post("/v1/signup", ["email": "plain@example.com", "password": "secret-1"])
        let plainUID = try #require(plain.json?["user"]?["uid"]?.stringValue)
        let owner = ["Authorization": "Bearer owner"]
        let accounts = FirebaseAdminRoutesTests.accounts
        func factors(_ users: JSONValue?) -> [String: [JSONValue]] {
            var byUID: [String: [JSONValue]] = [:]
            for entry in users?.arrayValue ?? [] {
                byUID[entry["localId"]?.stringValue ?? ""] = entry["mfaInfo"]?.arrayValue ?? []
            }
            return byUID
        }
        func checkListed(_ users: JSONValue?) {
            let listed = factors(users)
            #expect(listed.count == 2)
            #expect(listed[plainUID] == [])
            let info = listed[user.uid.rawValue]?.first
            #expect(listed[user.uid.rawValue]?.count == 1)
            #expect(info?["mfaEnrollmentId"]?.stringValue == user.factorID)
            #expect(info?["displayName"] == "Phone")
            #expect(info?["totpInfo"] == [:])
            #expect(info?["enrolledAt"]?.stringValue != nil)
        }
        let page = await broker.firebase("GET", accounts + ":batchGet?maxResults=10", headers: owner)
        #expect(page.status == 200)
        checkListed(page.json?["users"])
        let lookup = await broker.firebasePost(
            accounts + ":lookup", ["localId": [.string(user.uid.rawValue), .string(plainUID)]], headers: owner)
        #expect(lookup.status == 200)
        checkListed(lookup.json?["users"])
        let query = await broker.firebasePost(accounts + ":query", ["returnUserInfo": true], headers: owner)
        #expect(query.status == 200)
        checkListed(query.json?["userInfo"])
    }

    @Test func aCustomTokenSignInIsNotAsked() async throws {
        let (broker, clock) = try await SecondFactorTests.start()
        let user = try await SecondFactorTests.enrolled(broker, clock, "custom@example.com")
        let step = try await broker.services.signIn.signIn(
            customToken: { CustomTokenProof(uid: user.uid, issuedAt: clock.now, claims: nil) }, requestID: "r",
            surface: .firebase)
        #expect(step.account.id == user.uid)
    }
}
