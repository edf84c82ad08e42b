#!/usr/bin/env bash
# Runs CMD with throwaway PostgreSQL clusters, then stops and deletes them:
#
#   scripts/with-postgres.sh swift test
#
# Each cluster lives in a new temporary directory (initdb as the `postgres` OS user when run as root, since
# PostgreSQL refuses to run as root), listens on a free loopback port and on a Unix socket in that directory,
# trusts local connections, and holds an empty database `broker_test`. CMD sees:
#
#   BROKER_TEST_POSTGRES_URL             postgres://postgres@127.0.0.1:PORT/broker_test, the shared cluster: the
#                                        store suites and the multi-instance tests, each in a schema of its own
#   BROKER_TEST_OUTAGE_POSTGRES_URL      a second cluster, only for the outage tests, which stop and restart it
#                                        (stopping the shared one would fail the tests running beside them)
#   BROKER_TEST_OUTAGE_POSTGRES_DATADIR  the second cluster's data directory
#   BROKER_TEST_OUTAGE_PG_CTL            a pg_ctl for the second cluster that already knows its data directory
#                                        and the user to run as: "$BROKER_TEST_OUTAGE_PG_CTL stop -m fast",
#                                        "$BROKER_TEST_OUTAGE_PG_CTL start -w"
#   BROKER_TEST_PGBOUNCER_URL            postgres://postgres@127.0.0.1:PORT/broker_test through a PgBouncer in
#                                        `pool_mode = transaction` in front of the shared cluster: the store
#                                        conformance suite and the two-instance tests run through it too. Only
#                                        when pgbouncer is installed (Debian: apt-get install pgbouncer).
#   BROKER_TEST_FAILOVER_PAIR            scripts/postgres-failover-pair.sh, which makes a primary with a
#                                        synchronous streaming standby in a new directory under
#   BROKER_TEST_FAILOVER_DIR             (each pair left there is stopped and removed at the end), for the
#                                        failover tests
#
# Exits with CMD's status. Without PostgreSQL's server binaries (Debian: apt-get install postgresql) it warns
# and runs CMD alone, so the PostgreSQL cases are skipped.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: scripts/with-postgres.sh CMD [ARG...]" >&2
  exit 2
fi

bindir=""
if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
  bindir="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"
else
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/pg_ctl" ] && [ -x "$candidate/initdb" ]; then bindir="$candidate"; break; fi
  done
fi
if [ -z "$bindir" ]; then
  echo "with-postgres: no PostgreSQL server binaries (pg_ctl, initdb); running without PostgreSQL" >&2
  exec "$@"
fi

# PostgreSQL refuses to run as root: as root, run its programs as the postgres user.
as_owner=()
owner="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  if ! id postgres >/dev/null 2>&1; then
    echo "with-postgres: running as root, but there is no postgres user to run PostgreSQL as" >&2
    exit 1
  fi
  if command -v runuser >/dev/null 2>&1; then
    as_owner=(runuser -u postgres --)
  else
    as_owner=(sudo -u postgres --)
  fi
fi

workdirs=()
pgbouncer_pidfile=""
cleanup() {
  local workdir pair
  if [ -n "${BROKER_TEST_FAILOVER_DIR:-}" ]; then
    for pair in "$BROKER_TEST_FAILOVER_DIR"/*/stop; do [ -x "$pair" ] && "$pair" || true; done
  fi
  if [ -n "$pgbouncer_pidfile" ] && [ -s "$pgbouncer_pidfile" ]; then
    kill "$(cat "$pgbouncer_pidfile")" 2>/dev/null || true
  fi
  for workdir in "${workdirs[@]}"; do
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$workdir/data" stop -m immediate -w >/dev/null 2>&1 || true
    rm -rf "$workdir"
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

. "$(dirname "${BASH_SOURCE[0]}")/lib/ports.sh"

# start_cluster SHARED_BUFFERS: makes, starts and fills a cluster; sets $url, $datadir and $pg_ctl.
start_cluster() {
  local workdir logfile candidate port=""
  workdir="$(mktemp -d "${TMPDIR:-/tmp}/broker-postgres.XXXXXX")"
  workdirs+=("$workdir")
  datadir="$workdir/data"
  logfile="$workdir/postgres.log"
  chmod 755 "$workdir"
  [ "$owner" = "$(id -un)" ] || chown "$owner" "$workdir"

  if ! "${as_owner[@]}" "$bindir/initdb" -D "$datadir" --username=postgres --auth=trust --encoding=UTF8 \
      --locale=C --no-sync >"$workdir/initdb.log" 2>&1; then
    cat "$workdir/initdb.log" >&2
    echo "with-postgres: initdb failed" >&2
    return 1
  fi
  # A free loopback port: one nothing answers on, retried if another process takes it first.
  for _ in 1 2 3 4 5 6 7 8; do
    candidate="$(listen_port_candidate)"
    port_in_use "$candidate" && continue
    cat >"$workdir/cluster.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $candidate
unix_socket_directories = '$workdir'
fsync = off
max_connections = 300
shared_buffers = $1
CONF
    # Kept in the cluster's own configuration, so a restart (the outage tests) comes back the same.
    "${as_owner[@]}" sh -c "cat '$workdir/cluster.conf' >> '$datadir/postgresql.auto.conf'"
    if "${as_owner[@]}" "$bindir/pg_ctl" -D "$datadir" -l "$logfile" -w -t 60 start >/dev/null; then
      port="$candidate"
      break
    fi
  done
  if [ -z "$port" ]; then
    tail -n 30 "$logfile" >&2 || true
    echo "with-postgres: the cluster did not start" >&2
    return 1
  fi
  "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres broker_test

  # A pg_ctl that runs as the cluster's owner with the data directory filled in.
  pg_ctl="$workdir/pg_ctl"
  cat >"$pg_ctl" <<WRAPPER
#!/usr/bin/env bash
exec ${as_owner[*]} "$bindir/pg_ctl" -D "$datadir" -l "$logfile" "\$@"
WRAPPER
  chmod 755 "$pg_ctl"
  url="postgres://postgres@127.0.0.1:$port/broker_test"
}

start_cluster 128MB
export BROKER_TEST_POSTGRES_URL="$url"
start_cluster 16MB
export BROKER_TEST_OUTAGE_POSTGRES_URL="$url"
export BROKER_TEST_OUTAGE_POSTGRES_DATADIR="$datadir"
export BROKER_TEST_OUTAGE_PG_CTL="$pg_ctl"
echo "with-postgres: PostgreSQL $("$bindir/pg_ctl" --version | awk '{print $3}') at $BROKER_TEST_POSTGRES_URL" \
  "(outage tests: $BROKER_TEST_OUTAGE_POSTGRES_URL)" >&2

# start_pgbouncer UPSTREAM_PORT: a PgBouncer in transaction mode in front of the shared cluster, as Supabase,
# Heroku and RDS Proxy run one; sets $url. Trusts loopback clients like the cluster does.
start_pgbouncer() {
  local workdir candidate port=""
  workdir="$(mktemp -d "${TMPDIR:-/tmp}/broker-pgbouncer.XXXXXX")"
  workdirs+=("$workdir")
  chmod 755 "$workdir"
  [ "$owner" = "$(id -un)" ] || chown "$owner" "$workdir"
  echo '"postgres" ""' >"$workdir/users.txt"
  for _ in 1 2 3 4 5 6 7 8; do
    candidate="$(listen_port_candidate)"
    port_in_use "$candidate" && continue
    cat >"$workdir/pgbouncer.ini" <<CONF
[databases]
broker_test = host=127.0.0.1 port=$1 dbname=broker_test
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $candidate
unix_socket_dir =
auth_type = trust
auth_file = $workdir/users.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
logfile = $workdir/pgbouncer.log
pidfile = $workdir/pgbouncer.pid
CONF
    [ "$owner" = "$(id -un)" ] || chown "$owner" "$workdir"/*
    if "${as_owner[@]}" "$pgbouncer" -d "$workdir/pgbouncer.ini" >/dev/null 2>&1; then
      pgbouncer_pidfile="$workdir/pgbouncer.pid"
      for _ in $(seq 1 100); do
        port_in_use "$candidate" && { port="$candidate"; break; }
        sleep 0.1
      done
      [ -n "$port" ] && break
    fi
  done
  if [ -z "$port" ]; then
    tail -n 30 "$workdir/pgbouncer.log" >&2 || true
    echo "with-postgres: pgbouncer did not start" >&2
    return 1
  fi
  url="postgres://postgres@127.0.0.1:$port/broker_test"
}

# The failover tests make their own primary-and-standby pairs (scripts/postgres-failover-pair.sh) in here.
BROKER_TEST_FAILOVER_DIR="$(mktemp -d "${TMPDIR:-/tmp}/broker-failover.XXXXXX")"
workdirs+=("$BROKER_TEST_FAILOVER_DIR")
chmod 755 "$BROKER_TEST_FAILOVER_DIR"
export BROKER_TEST_FAILOVER_DIR BROKER_TEST_PG_BINDIR="$bindir"
export BROKER_TEST_FAILOVER_PAIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/postgres-failover-pair.sh"

pgbouncer="$(command -v pgbouncer || true)"
[ -n "$pgbouncer" ] || [ ! -x /usr/sbin/pgbouncer ] || pgbouncer=/usr/sbin/pgbouncer
if [ -n "$pgbouncer" ]; then
  shared_port="${BROKER_TEST_POSTGRES_URL##*:}"
  start_pgbouncer "${shared_port%%/*}"
  export BROKER_TEST_PGBOUNCER_URL="$url"
  echo "with-postgres: $("$pgbouncer" --version | head -n 1) (pool_mode = transaction) at $url" >&2
else
  echo "with-postgres: no pgbouncer; the tests through a transaction-pooling PgBouncer are skipped" >&2
fi

# CMD runs in the background so that a SIGTERM or SIGINT reaches this script at once: it is passed on to
# CMD, and the clusters are removed once CMD has exited.
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' TERM
trap 'kill -INT "$child" 2>/dev/null || true' INT
status=0
while true; do
  wait "$child" && status=0 || status=$?
  kill -0 "$child" 2>/dev/null || break
done
exit "$status"
