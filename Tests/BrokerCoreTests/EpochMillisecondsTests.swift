import BrokerCore
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Dates to integers without a trap, however far the date (issue 10, item 5).
@Suite struct EpochMillisecondsTests {
    @Test func ordinaryDatesAreExactMilliseconds() {
        #expect(Date(timeIntervalSince1970: 1_800_000_000.1234).epochMilliseconds == 1_800_000_000_123)
        #expect(Date(timeIntervalSince1970: -1.5).epochMilliseconds == -1500)
        #expect(Date(timeIntervalSince1970: 0).epochMilliseconds == 0)
    }

    @Test(arguments: [1e17, 1e300, Double.infinity, Double.greatestFiniteMagnitude])
    func farDatesAreClampedNotTrapped(_ seconds: Double) {
        #expect(Date(timeIntervalSince1970: seconds).epochMilliseconds == Date.epochMillisecondsLimit)
        #expect(Date(timeIntervalSince1970: -seconds).epochMilliseconds == -Date.epochMillisecondsLimit)
    }

    @Test func aNaNDateIsTheEpoch() {
        #expect(Date(timeIntervalSince1970: .nan).epochMilliseconds == 0)
        #expect(RFC3339.format(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00Z")
    }

    @Test func rfc3339WritesFarDatesAsTheNearestFourDigitYear() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1e17)) == "9999-12-31T23:59:59Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1e17), milliseconds: true) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1e300)) == "0001-01-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_800)) == "9999-12-31T23:59:59Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
        #expect(PageCursor(at: Date(timeIntervalSince1970: 1e17), id: "x").millis == Date.epochMillisecondsLimit)
    }
}
