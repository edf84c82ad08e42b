public import Foundation

extension Date {
    /// The most milliseconds either side of 1970 a stored time holds: ECMAScript's range of dates (100,000,000
    /// days, about 273,790 years), well inside `Int64`.
    public static let epochMillisecondsLimit: Int64 = 8_640_000_000_000_000

    /// The date as whole milliseconds since 1970, rounded; clamped to ``epochMillisecondsLimit`` either side, and
    /// 0 for a date made from NaN. Never traps, whatever number the date was made from (converting a Double past
    /// `Int64`'s range does).
    public var epochMilliseconds: Int64 {
        let millis = (timeIntervalSince1970 * 1000).rounded()
        guard !millis.isNaN else { return 0 }
        let limit = Double(Date.epochMillisecondsLimit)
        return Int64(Swift.min(Swift.max(millis, -limit), limit))
    }
}
