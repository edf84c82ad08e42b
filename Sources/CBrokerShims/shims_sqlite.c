#include <sqlite3.h>
#include "shims_sqlite.h"

int broker_sqlite3_bind_text_transient(struct sqlite3_stmt *statement, int index, const char *text, int byteCount) {
    return sqlite3_bind_text(statement, index, text, byteCount, SQLITE_TRANSIENT);
}

const int broker_sqlite_constraint_unique = SQLITE_CONSTRAINT_UNIQUE;
const int broker_sqlite_constraint_primarykey = SQLITE_CONSTRAINT_PRIMARYKEY;
