import BrokerCore
import BrokerStorage
import CBrokerShims
import CSQLite

/// The one funnel every SQLite return code goes through, like swift-nio's `syscall` wrapper.
///
/// Success codes (`SQLITE_OK`, `SQLITE_ROW`, `SQLITE_DONE`) are returned; anything else becomes a
/// ``SQLError`` whose code callers can rely on: UNIQUE and PRIMARY KEY violations are `.uniqueViolation`,
/// a lock held past the busy timeout is `.busy`, a database that cannot be opened, read or written is
/// `.unavailable`. `db` supplies the message; it may be nil when opening failed before a handle existed.
@discardableResult
func sqliteCheck(_ code: Int32, _ db: OpaquePointer?, _ context: @autoclosure () -> String) throws -> Int32 {
    switch code {
    case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
        return code
    default:
        throw sqliteError(code, db, context())
    }
}

/// The ``SQLError`` for a failed SQLite call; see ``sqliteCheck(_:_:_:)``.
func sqliteError(_ code: Int32, _ db: OpaquePointer?, _ context: String) -> SQLError {
    let message: String
    if let db, let text = sqlite3_errmsg(db) {
        message = "\(context): \(String(cString: text)) (\(code))"
    } else if let text = sqlite3_errstr(code) {
        message = "\(context): \(String(cString: text)) (\(code))"
    } else {
        message = "\(context): SQLite error \(code)"
    }
    return SQLError(sqliteErrorCode(code), message)
}

/// Classifies an (extended) SQLite result code.
func sqliteErrorCode(_ code: Int32) -> SQLError.Code {
    switch code & 0xFF {
    case SQLITE_CONSTRAINT:
        let isUniqueness = code == broker_sqlite_constraint_unique || code == broker_sqlite_constraint_primarykey
        return isUniqueness ? .uniqueViolation : .other
    case SQLITE_BUSY, SQLITE_LOCKED:
        return .busy
    case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_FULL, SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_PERM, SQLITE_READONLY,
        SQLITE_PROTOCOL, SQLITE_AUTH:
        return .unavailable
    default:
        return .other
    }
}
