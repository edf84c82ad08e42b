import BrokerCore
import BrokerModel
import Foundation
import Testing

@Suite struct RFC3339Tests {
    @Test func matchesFoundationsISO8601AcrossCenturiesAndLeapDaysWithExactMilliseconds() {
        var generator = SystemRandomNumberGenerator()
        var dates = [
            0, 951_782_400, 951_868_799.999, 1_709_164_800.5, 4_107_542_399.999, 253_402_300_799, -1, -86_400.25,
            -2_208_988_800, 1_798_761_599.9995,
        ].map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<2_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: -2_000_000_000...8_000_000_000, using: &generator)))
        }
        for date in dates {
            #expect(RFC3339.format(date) == date.formatted(.iso8601), "\(date.timeIntervalSince1970)")
            // Milliseconds: those of the epoch milliseconds rounded down (Foundation's fractional formatter
            // is off by one now and then, from binary floating point), after that second as Foundation writes it.
            let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            let second = Date(timeIntervalSince1970: Double(millis - ((millis % 1000) + 1000) % 1000) / 1000)
            let fraction = String(((millis % 1000) + 1000) % 1000)
            let expected = second.formatted(.iso8601).dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
            #expect(RFC3339.format(date, milliseconds: true) == expected, "\(date.timeIntervalSince1970)")
        }
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_799_999_000.123), milliseconds: true) == "2027-01-15T07:43:20.123Z")
    }
}
