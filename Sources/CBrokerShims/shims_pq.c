#include <libpq-fe.h>
#include "shims_pq.h"

const char *broker_pq_sqlstate(const struct pg_result *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

const char *broker_pq_primary_message(const struct pg_result *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

const char *broker_pq_constraint_name(const struct pg_result *result) {
    return PQresultErrorField(result, PG_DIAG_CONSTRAINT_NAME);
}

static void broker_pq_ignore_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}

void broker_pq_discard_notices(struct pg_conn *connection) {
    PQsetNoticeProcessor(connection, broker_pq_ignore_notice, NULL);
}
