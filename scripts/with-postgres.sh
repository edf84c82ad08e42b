#!/usr/bin/env bash
# Runs CMD with a throwaway PostgreSQL cluster, then stops it and deletes it:
#
#   scripts/with-postgres.sh swift test
#
# The cluster lives in a new temporary directory (initdb as the `postgres` OS user when run as root, since
# PostgreSQL refuses to run as root), listens on a free loopback port and on a Unix socket in that directory,
# trusts local connections, and holds an empty database `broker_test`. CMD sees:
#
#   BROKER_TEST_POSTGRES_URL      postgres://postgres@127.0.0.1:PORT/broker_test
#   BROKER_TEST_POSTGRES_DATADIR  the cluster's data directory
#   BROKER_TEST_PG_CTL            a pg_ctl that already knows the data directory and the user to run as
#                                 (the outage tests run "$BROKER_TEST_PG_CTL stop -m fast" and "... start -w")
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

workdir="$(mktemp -d "${TMPDIR:-/tmp}/broker-postgres.XXXXXX")"
datadir="$workdir/data"
logfile="$workdir/postgres.log"
chmod 755 "$workdir"
[ "$owner" = "$(id -un)" ] || chown "$owner" "$workdir"

cleanup() {
  "${as_owner[@]}" "$bindir/pg_ctl" -D "$datadir" stop -m immediate -w >/dev/null 2>&1 || true
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! "${as_owner[@]}" "$bindir/initdb" -D "$datadir" --username=postgres --auth=trust --encoding=UTF8 \
    --locale=C --no-sync >"$workdir/initdb.log" 2>&1; then
  cat "$workdir/initdb.log" >&2
  echo "with-postgres: initdb failed" >&2
  exit 1
fi

# A free loopback port: one nothing answers on, retried if another process takes it first.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
for _ in 1 2 3 4 5 6 7 8; do
  candidate=$((20000 + RANDOM % 30000))
  port_in_use "$candidate" && continue
  if "${as_owner[@]}" "$bindir/pg_ctl" -D "$datadir" -l "$logfile" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$candidate -c unix_socket_directories=$workdir -c fsync=off -c max_connections=300" \
      start >/dev/null; then
    port="$candidate"
    break
  fi
done
if [ -z "$port" ]; then
  tail -n 30 "$logfile" >&2 || true
  echo "with-postgres: the cluster did not start" >&2
  exit 1
fi
# Later restarts (the outage tests) reuse the same settings.
cat >>"$datadir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$workdir'
fsync = off
max_connections = 300
CONF

"$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres broker_test

# A pg_ctl that runs as the cluster's owner with the data directory filled in.
cat >"$workdir/pg_ctl" <<WRAPPER
#!/usr/bin/env bash
exec ${as_owner[*]} "$bindir/pg_ctl" -D "$datadir" -l "$logfile" "\$@"
WRAPPER
chmod 755 "$workdir/pg_ctl"

export BROKER_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/broker_test"
export BROKER_TEST_POSTGRES_DATADIR="$datadir"
export BROKER_TEST_PG_CTL="$workdir/pg_ctl"
echo "with-postgres: PostgreSQL $("$bindir/pg_ctl" --version | awk '{print $3}') at $BROKER_TEST_POSTGRES_URL" >&2

status=0
"$@" || status=$?
exit "$status"
