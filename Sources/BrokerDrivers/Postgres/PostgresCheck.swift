import BrokerCore
import BrokerStorage
import CBrokerShims
import CLibPQ
import Foundation

/// The one funnel every libpq result goes through, like swift-nio's `syscall` wrapper (and `sqliteCheck`).
///
/// A successful result (`PGRES_COMMAND_OK`, `PGRES_TUPLES_OK`, `PGRES_EMPTY_QUERY`) is returned for the caller
/// to read and `PQclear`. Anything else is cleared and becomes a ``SQLError`` whose code callers rely on: a
/// UNIQUE or PRIMARY KEY violation (SQLSTATE 23505) is `.uniqueViolation`; serialization failures, deadlocks,
/// lock and statement timeouts are `.busy`; a lost connection or a server that is shutting down, starting up,
/// refusing logins or out of resources is `.unavailable`. A nil result (libpq could not even build one) is a
/// lost connection or exhausted memory. `observe` sees the SQLSTATE (nil when libpq itself failed) before
/// the error is thrown, so a transaction can tell a serialization failure it should retry.
///
/// Messages carry the primary message only, never the DETAIL line: a violated key's DETAIL repeats the
/// offending values.
@discardableResult
func pqCheck(
    _ result: OpaquePointer?, _ connection: OpaquePointer, _ context: @autoclosure () -> String,
    observe: (String?) -> Void = { _ in }
) throws -> OpaquePointer {
    guard let result else {
        observe(nil)
        throw SQLError(
            pqErrorCode(sqlState: nil, connectionBroken: PQstatus(connection) == CONNECTION_BAD),
            "\(context()): \(pqConnectionMessage(connection))")
    }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
        return result
    default:
        let sqlState = broker_pq_sqlstate(result).map { String(cString: $0) }
        var message = broker_pq_primary_message(result).map { String(cString: $0) }
            ?? PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
        if message.isEmpty { message = pqConnectionMessage(connection) }
        if let constraint = broker_pq_constraint_name(result) {
            message += " (constraint \(String(cString: constraint)))"
        }
        PQclear(result)
        observe(sqlState)
        var code = pqErrorCode(sqlState: sqlState, connectionBroken: PQstatus(connection) == CONNECTION_BAD)
        // "cannot use serializable mode in a hot standby": a read-only server reached by mistake (a URL
        // without target_session_attrs=read-write, or a pooler in front of a standby) is unavailable, not a bug.
        if sqlState == "0A000" && message.contains("hot standby") { code = .unavailable }
        throw SQLError(code, "\(context()): \(trimmed(message))\(sqlState.map { " [\($0)]" } ?? "")")
    }
}

/// Classifies a SQLSTATE. A connection libpq reports broken is `.unavailable` whatever the state says.
func pqErrorCode(sqlState: String?, connectionBroken: Bool) -> SQLError.Code {
    if connectionBroken { return .unavailable }
    guard let sqlState else { return .other }
    switch sqlState {
    case "23505":
        return .uniqueViolation
    case "40001", "40P01", "55P03", "57014":
        // serialization_failure, deadlock_detected, lock_not_available, query_canceled (statement_timeout).
        return .busy
    case "57P01", "57P02", "57P03", "57P04", "3D000", "25006":
        // admin_shutdown, crash_shutdown, cannot_connect_now, database_dropped, invalid_catalog_name,
        // read_only_sql_transaction (a standby after a failover).
        return .unavailable
    default:
        // connection_exception, insufficient_resources, system_error, invalid_authorization_specification.
        return ["08", "53", "58", "28"].contains(String(sqlState.prefix(2))) ? .unavailable : .other
    }
}

/// `PQerrorMessage`, trimmed; libpq's connection messages name host and port, never the password.
func pqConnectionMessage(_ connection: OpaquePointer) -> String {
    let message = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
    return message.isEmpty ? "no message from libpq" : trimmed(message)
}

/// `text` on one line: libpq ends messages with a newline and indents hints with tabs.
func trimmed(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }.joined(separator: " ")
}
