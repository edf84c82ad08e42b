#pragma once
/* libpq helpers Swift cannot express: the PG_DIAG_* field codes are character-literal macros, and a notice
   processor is a C callback best kept out of Swift (a C thread may call it).
   libpq-fe.h is deliberately not included here, so the CLibPQ module stays the only one exporting its API. */

struct pg_conn;
struct pg_result;

/* The five-character SQLSTATE of a failed result, or NULL when the failure came from libpq itself
   (a lost connection, out of memory) and has no SQLSTATE. */
const char *broker_pq_sqlstate(const struct pg_result *result);

/* The primary error message of a failed result (never DETAIL, which can carry the offending values),
   or NULL. */
const char *broker_pq_primary_message(const struct pg_result *result);

/* The name of the constraint a failed result violated, or NULL. */
const char *broker_pq_constraint_name(const struct pg_result *result);

/* Discards the server's NOTICE and WARNING messages, which libpq would otherwise print to stderr
   (for example "relation already exists, skipping"). */
void broker_pq_discard_notices(struct pg_conn *connection);
