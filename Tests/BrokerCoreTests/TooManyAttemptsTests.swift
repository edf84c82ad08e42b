import Foundation
import Testing

@testable import BrokerCore
@testable import BrokerModel

/// The wait a per-address or lockout limit answers with (`Retry-After`): whole seconds, at least 1, at most the
/// limit's window.
@Suite struct TooManyAttemptsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000.0006)

    @Test func aPartSecondIsRoundedUp() {
        let error = AccountError.tooManyAttempts(until: now + 10.2, from: now, window: 3600)
        #expect(error.code == .tooManyAttempts)
        #expect(error.retryAfter == 11)
    }

    @Test func anOldestAttemptStoredAFractionOfAMillisecondAheadWaitsTheWindowNotASecondMore() {
        // Stored to the nearest millisecond: 0.0006 s after the second becomes 0.001 s.
        let stored = Date(timeIntervalSince1970: 1_800_000_000.001)
        #expect(AccountError.tooManyAttempts(until: stored + 3600, from: now, window: 3600).retryAfter == 3600)
        #expect(AccountError.tooManyAttempts(until: stored + 900, from: now, window: 900).retryAfter == 900)
    }

    @Test func aWaitAlreadyOverOrBelowASecondIsOneSecond() {
        #expect(AccountError.tooManyAttempts(until: now - 5, from: now, window: 3600).retryAfter == 1)
        #expect(AccountError.tooManyAttempts(until: now + 0.0001, from: now, window: 3600).retryAfter == 1)
    }
}
