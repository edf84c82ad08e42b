import BrokerCore
import BrokerFirebase
import BrokerModel
import Testing

/// The Firebase surface's one mapping, for the action-code and session-cookie errors: each becomes Firebase's
/// code in the body's `error.message` (and `errors[0].message`), with Firebase's status.
@Suite struct FirebaseErrorMappingTests {
    static let cases: [(any Error & Sendable, String)] = [
        (ActionCodeError(.invalidCode), "INVALID_OOB_CODE"),
        (ActionCodeError(.expiredCode), "EXPIRED_OOB_CODE"),
        (ActionCodeError(.wrongEmail), "INVALID_EMAIL"),
        (ActionCodeError(.missingNewPassword), "MISSING_NEW_PASSWORD"),
        (ActionCodeError(.accountNotFound), "EMAIL_NOT_FOUND"),
        (ActionCodeError(.invalidContinueURL), "INVALID_CONTINUE_URI"),
        (SessionCookieError(.invalidDuration), "INVALID_DURATION"),
        (SessionCookieError(.invalidCookie), "INVALID_SESSION_COOKIE"),
    ]

    @Test(arguments: cases)
    func theErrorBecomesFirebasesCodeInTheBody(error: any Error & Sendable, code: String) throws {
        let mapped = try #require(FirebaseError.mapping(error))
        #expect(mapped.code == code)
        let response = mapped.response
        #expect(response.status == 400)
        let body = try #require(JSONValue.parse(response.body)?["error"])
        let message = try #require(body["message"]?.stringValue)
        #expect(message == code || message.hasPrefix(code + " : "))
        #expect(body["code"]?.intValue == 400)
        #expect(body["errors"]?.arrayValue?.first?["message"]?.stringValue == message)
    }

    @Test func everyCodeOfBothErrorsIsInTheTable() {
        let actionCodes: [ActionCodeError.Code] = [
            .invalidCode, .expiredCode, .wrongEmail, .missingNewPassword, .accountNotFound, .invalidContinueURL,
        ]
        let cookieCodes: [SessionCookieError.Code] = [.invalidDuration, .invalidCookie]
        let listed = Self.cases.map(\.0)
        #expect(actionCodes.allSatisfy { code in listed.contains { ($0 as? ActionCodeError)?.code == code } })
        #expect(cookieCodes.allSatisfy { code in listed.contains { ($0 as? SessionCookieError)?.code == code } })
    }
}
