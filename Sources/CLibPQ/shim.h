/* libpq, PostgreSQL's C client (Debian: libpq-dev; pkg-config puts /usr/include/postgresql on the path). */
#include <libpq-fe.h>
