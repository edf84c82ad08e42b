import BrokerCore
import BrokerModel
public import Foundation

/// A file written by `firebase auth:export --format=json` (`{"users": [...]}`), checked whole in one
/// streaming pass when opened, then read one user at a time: no tree of the whole file is ever built,
/// so a 100,000-user export costs its (memory-mapped) bytes plus one range per user.
public struct FirebaseExport: Sendable {
    /// The largest file accepted.
    public static let maximumFileBytes = 4 * 1024 * 1024 * 1024

    private let bytes: Data
    private let ranges: [Range<Int>]

    /// Checks `data` whole. Throws ``FirebaseExportError``: `malformedFile` with the line and column of
    /// the first problem, `notAnExport` without a `users` array, `tooLarge` beyond the bounds.
    public init(data: Data) throws {
        guard data.count <= Self.maximumFileBytes else {
            throw FirebaseExportError(.tooLarge, "larger than \(Self.maximumFileBytes) bytes")
        }
        bytes = data
        ranges = try data.withUnsafeBytes { try FirebaseExportScanner.userRanges(in: $0) }
    }

    /// Opens (memory-mapped) and checks the file at `url`, as ``init(data:)`` does; `unreadable` when it
    /// cannot be read.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw FirebaseExportError(.unreadable, "cannot read \(url.path)")
        }
        try self.init(data: data)
    }

    /// The number of user records.
    public var count: Int { ranges.count }

    /// The user at `index` (0-based, in file order), decoded and validated; ``FirebaseUserError`` when it
    /// cannot be imported.
    public func user(at index: Int) throws -> FirebaseUserRecord {
        let range = ranges[index]
        guard range.count <= FirebaseUserRecord.maximumRecordBytes else {
            throw FirebaseUserError(.invalidRecord, "record larger than \(FirebaseUserRecord.maximumRecordBytes) bytes")
        }
        let element = bytes.withUnsafeBytes { Array($0[range]) }
        guard let value = JSONValue.parse(element) else {
            // The scan accepted these bytes; only a limit of the element parser can refuse them here.
            throw FirebaseUserError(.invalidRecord, "not a JSON object")
        }
        return try FirebaseUserRecord(json: value)
    }
}
