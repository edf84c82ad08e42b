import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Audit event ids and session ids sort in the order they were made (so SQL indexes on them grow at the end),
/// and stay unique through their random part.
@Suite struct TimeOrderedIDTests {
    @Test func idsIncreaseStrictlyAndEndInEightRandomHexDigits() throws {
        let ids = (0..<2_000).map { _ in AuditEvent.nextID() }
        for (earlier, later) in zip(ids, ids.dropFirst()) {
            #expect(earlier < later, "\(earlier) then \(later)")
        }
        let shape = try Regex("^[0-9]{20}-[0-9a-f]{8}$")
        for id in ids {
            #expect(id.wholeMatch(of: shape) != nil, "\(id)")
        }
        // The suffix is random, not derived from the counter: 2,000 draws of 32 bits all but never collide.
        let suffixes = Set(ids.map { $0.split(separator: "-")[1] })
        #expect(suffixes.count >= 1_998)
    }

    @Test func theCounterIsTheClockInMicroseconds() {
        let before = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let id = AuditEvent.nextID()
        let after = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let counter = Int64(id.prefix(20)) ?? -1
        // Bumped past earlier ids of this process at most by the ids made before it, never behind the clock.
        #expect(counter >= before)
        #expect(counter <= after + 1_000_000)
    }

    @Test func sessionIDsSortByCreationTimeAndDifferWithinOneMillisecond() throws {
        let shape = try Regex("^[0-9]{15}-[A-Za-z0-9_-]{22}$")
        let start = Date(timeIntervalSince1970: 1_795_978_951.602)
        var previous = ""
        for step in 0..<500 {
            // Two ids per millisecond, and a millisecond apart.
            let date = start + Double(step / 2) / 1000
            let id = SessionGrant.newSessionID(at: date)
            #expect(id.wholeMatch(of: shape) != nil, "\(id)")
            #expect(id.hasPrefix("00" + String(1_795_978_951_602 + step / 2) + "-"), "\(id)")
            if step % 2 == 1 {
                #expect(id != previous)
            } else {
                #expect(id > previous, "\(previous) then \(id)")
            }
            previous = id
        }
        #expect(SessionGrant.newSessionID(at: Date(timeIntervalSince1970: 0)).hasPrefix("000000000000000-"))
    }
}
