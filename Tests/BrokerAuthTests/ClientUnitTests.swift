import BrokerModel
import BrokerTesting
import Foundation
import Testing

@testable import BrokerAuth

/// The parts of BrokerAuth that need no broker: the nonce's hash, the error codes, the storage's names.
@Suite struct ClientUnitTests {
    @Test func theNonceHashIsSHA256InLowercaseHex() {
        // FIPS 180-4's examples, one and two blocks, and the empty message.
        #expect(SignInNonce(raw: "abc").hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SignInNonce(raw: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hashed
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SignInNonce(raw: "").hashed == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        for _ in 0..<20 {
            let nonce = SignInNonce()
            #expect(nonce.raw.count == 64)
            #expect(nonce.hashed == TestTokens.hashedNonce(nonce.raw))
        }
        #expect(SignInNonce().raw != SignInNonce().raw)
    }

    /// Every code of the contract's section 6 (and the two the native API adds) is a case of its own.
    static let contractCodes = [
        "INVALID_REQUEST", "MISSING_NONCE", "WEAK_PASSWORD", "INVALID_EMAIL", "INVALID_LOGIN_CREDENTIALS",
        "KAKAO_EMAIL_REQUIRED", "LAST_IDENTITY", "INVALID_OOB_CODE", "EXPIRED_OOB_CODE", "INVALID_MFA_CODE",
        "INVALID_PASSKEY", "INVALID_TOKEN", "TOKEN_EXPIRED", "INVALID_AUDIENCE", "INVALID_ISSUER", "NONCE_MISMATCH",
        "TOKEN_REPLAYED", "KAKAO_APP_MISMATCH", "INVALID_REFRESH_TOKEN", "UNAUTHENTICATED", "MFA_REQUIRED",
        "INVALID_MFA_PENDING_CREDENTIAL", "RECENT_SIGN_IN_REQUIRED", "USER_DISABLED", "BLOCKED_BY_HOOK", "NOT_FOUND",
        "PROVIDER_NOT_ENABLED", "EMAIL_EXISTS", "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL", "IDENTITY_ALREADY_LINKED",
        "PASSKEY_EXISTS", "PAYLOAD_TOO_LARGE", "TOO_MANY_ATTEMPTS", "MAIL_NOT_CONFIGURED", "PROVIDER_MISCONFIGURED",
        "PROVIDER_UNAVAILABLE", "STORAGE_UNAVAILABLE", "HOOK_UNAVAILABLE", "UNAVAILABLE", "INTERNAL",
    ]

    @Test(arguments: contractCodes)
    func everyCodeHasItsCase(_ code: String) {
        let error = BrokerAuthError(body: .init(code: code, message: "m"), retryAfter: 5)
        #expect(error.code == code)
        if case .other = error { Issue.record("\(code) has no case") }
    }

    @Test func theExtraMembersAndRetryAfterAreKept() throws {
        let body = Data(
            #"""
            {"error": {"code": "MFA_REQUIRED", "message": "m", "mfaPendingCredential": "pending-1",
             "factors": [{"factorId": "f1", "type": "totp", "displayName": "Phone"}]}}
            """#.utf8)
        let detail = try JSONDecoder().decode(ErrorBody.self, from: body).error
        let expected = PendingSecondFactor(
            credential: "pending-1", factors: [SecondFactor(factorID: "f1", type: "totp", displayName: "Phone")])
        #expect(BrokerAuthError(body: detail, retryAfter: nil) == .mfaRequired(expected))
        #expect(
            BrokerAuthError(body: .init(code: "TOO_MANY_ATTEMPTS", message: ""), retryAfter: 60)
                == .tooManyAttempts(retryAfter: 60))
        #expect(
            BrokerAuthError(body: .init(code: "SOMETHING_NEW", message: "x"), retryAfter: nil)
                == .other(code: "SOMETHING_NEW", message: "x"))
        #expect(BrokerAuthError.network(message: "offline").code == nil)
    }

    @Test func theDefaultStorageOnLinuxIsAFilePerBroker() throws {
        let vault = try #require(
            SessionStorage.default.vault(for: URL(string: "https://auth.example.com:8443/tenant/a")!) as? FileVault)
        #expect(vault.url.lastPathComponent == "auth.example.com-8443-_tenant_a.session")
        #expect(vault.url.deletingLastPathComponent().lastPathComponent == "BrokerAuth")
        let other = try #require(
            SessionStorage.default.vault(for: URL(string: "https://other.example.com")!) as? FileVault)
        #expect(other.url != vault.url)
    }

    @Test func anUnreadableSessionFileIsNoSession() throws {
        let directory = try LiveBroker.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("session.json")
        try Data("not json".utf8).write(to: file)
        #expect(BrokerAuth(baseURL: URL(string: "http://127.0.0.1:1")!, storage: .file(file)).currentUser == nil)
    }
}
