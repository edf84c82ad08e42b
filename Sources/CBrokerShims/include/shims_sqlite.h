#pragma once
/* SQLite helpers Swift cannot express: SQLITE_TRANSIENT is a function-pointer cast macro.
   sqlite3.h is deliberately not included here, so the CSQLite module stays the only one exporting its API. */

struct sqlite3_stmt;

/* sqlite3_bind_text with SQLITE_TRANSIENT: SQLite copies the bytes before returning, so the caller's buffer
   only has to live for the duration of the call. `text` must not be NULL (SQLite would bind NULL). */
int broker_sqlite3_bind_text_transient(struct sqlite3_stmt *statement, int index, const char *text, int byteCount);

/* Extended result codes whose macros combine other macros, which Swift does not import. */
extern const int broker_sqlite_constraint_unique;
extern const int broker_sqlite_constraint_primarykey;
