public import Foundation

/// RFC 3339 timestamps in UTC (`2026-11-29T16:58:21Z`, or with milliseconds `2026-11-29T16:58:21.123Z`),
/// written straight from the epoch: Foundation's formatters cost more than the rest of a log line.
public enum RFC3339 {
    /// The first and last milliseconds RFC 3339's four-digit years can write: 0001-01-01 and 9999-12-31.
    static let writableMillis: ClosedRange<Double> = -62_135_596_800_000...253_402_300_799_999

    /// `date` in UTC, with `milliseconds` or to the whole second (truncated, as Foundation's formatter does).
    /// A date outside the years 1 to 9999 is written as the nearest of them (and NaN as 1970), never a trap.
    public static func format(_ date: Date, milliseconds: Bool = false) -> String {
        let raw = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let clamped = raw.isNaN ? 0 : Swift.min(Swift.max(raw, writableMillis.lowerBound), writableMillis.upperBound)
        let totalMillis = Int64(clamped)
        let (days, dayMillis) = floorDivision(totalMillis, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let seconds = Int(dayMillis / 1000)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(0x30 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(0x2D)
        digits(month, 2)
        bytes.append(0x2D)
        digits(day, 2)
        bytes.append(0x54)
        digits(seconds / 3600, 2)
        bytes.append(0x3A)
        digits(seconds / 60 % 60, 2)
        bytes.append(0x3A)
        digits(seconds % 60, 2)
        if milliseconds {
            bytes.append(0x2E)
            digits(Int(dayMillis % 1000), 3)
        }
        bytes.append(0x5A)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = (value % divisor + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// The proleptic Gregorian (year, month, day) of `days` after 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}

extension Date {
    /// RFC 3339 in UTC, as the API writes times.
    public var rfc3339: String { RFC3339.format(self) }
}
