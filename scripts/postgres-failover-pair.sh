#!/usr/bin/env bash
# Makes a throwaway PostgreSQL primary with a streaming, synchronous standby (pg_basebackup -R), for the
# failover tests (Tests/ContractTests/PostgresFailoverTests.swift), in the new directory WORKDIR:
#
#   scripts/postgres-failover-pair.sh WORKDIR
#
# Both listen on free loopback ports and trust local connections; the primary holds an empty database
# `broker_test` and waits for the standby's acknowledgement of every commit (synchronous_standby_names = '*').
# Prints `primary=PORT standby=PORT` on its last line (also written to WORKDIR/ports), and leaves in WORKDIR:
# `pg_ctl-primary` and `pg_ctl-standby` (pg_ctl with the data directory and the user filled in:
# "WORKDIR/pg_ctl-standby promote -w"), and `stop`, which resumes a frozen server, stops both (immediately) and
# removes WORKDIR. scripts/with-postgres.sh exports this script
# as BROKER_TEST_FAILOVER_PAIR.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: scripts/postgres-failover-pair.sh WORKDIR" >&2
  exit 2
fi
workdir="$1"

bindir="${BROKER_TEST_PG_BINDIR:-}"
if [ -z "$bindir" ]; then
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    bindir="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"
  else
    bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -n 1)"
  fi
fi
[ -x "$bindir/pg_basebackup" ] || { echo "postgres-failover-pair: no pg_basebackup in '$bindir'" >&2; exit 1; }

as_owner=()
owner="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  if command -v runuser >/dev/null 2>&1; then as_owner=(runuser -u postgres --); else as_owner=(sudo -u postgres --); fi
fi

mkdir -p "$workdir"
chmod 755 "$workdir"
[ "$owner" = "$(id -un)" ] || chown "$owner" "$workdir"

. "$(dirname "${BASH_SOURCE[0]}")/lib/ports.sh"

# fail MESSAGE: says why on standard error and in WORKDIR/make.log (which a test that discards the output reads),
# and exits.
fail() {
  echo "postgres-failover-pair: $1" | tee -a "$workdir/make.log" >&2
  exit 1
}

# start NAME: starts WORKDIR/NAME on a free loopback port (tried again on another one when the start fails, as
# when another process took the port first) and sets $started_port. Its settings go last in its
# postgresql.auto.conf, where the last value of a setting wins.
start() {
  local candidate
  started_port=""
  for _ in 1 2 3 4 5 6 7 8; do
    candidate="$(listen_port_candidate)"
    port_in_use "$candidate" && continue
    "${as_owner[@]}" sh -c "cat >> '$workdir/$1/postgresql.auto.conf'" <<CONF
port = $candidate
CONF
    if "$workdir/pg_ctl-$1" -w -t 60 start >/dev/null; then
      started_port="$candidate"
      return 0
    fi
  done
  fail "$1 did not start: $(tail -n 20 "$workdir/$1.log" 2>/dev/null)"
}

# wrapper NAME: WORKDIR/pg_ctl-NAME, pg_ctl for WORKDIR/NAME as its owner.
wrapper() {
  cat >"$workdir/pg_ctl-$1" <<WRAPPER
#!/usr/bin/env bash
exec ${as_owner[*]} "$bindir/pg_ctl" -D "$workdir/$1" -l "$workdir/$1.log" "\$@"
WRAPPER
  chmod 755 "$workdir/pg_ctl-$1"
}

cat >"$workdir/stop" <<STOP
#!/usr/bin/env bash
for name in primary standby; do
  if [ -f "$workdir/\$name/postmaster.pid" ]; then
    kill -CONT "\$(head -n 1 "$workdir/\$name/postmaster.pid")" 2>/dev/null || true
    pkill -CONT -P "\$(head -n 1 "$workdir/\$name/postmaster.pid")" 2>/dev/null || true
  fi
  "$workdir/pg_ctl-\$name" stop -m immediate -w >/dev/null 2>&1 || true
done
rm -rf "$workdir"
STOP
chmod 755 "$workdir/stop"
wrapper primary
wrapper standby

"${as_owner[@]}" "$bindir/initdb" -D "$workdir/primary" --username=postgres --auth=trust --encoding=UTF8 \
  --locale=C --no-sync >"$workdir/initdb.log" 2>&1 || fail "initdb failed: $(cat "$workdir/initdb.log")"
"${as_owner[@]}" sh -c "cat >> '$workdir/primary/postgresql.auto.conf'" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$workdir'
fsync = off
shared_buffers = 16MB
max_connections = 50
synchronous_commit = on
CONF
start primary
primary_port="$started_port"
"$bindir/createdb" -h 127.0.0.1 -p "$primary_port" -U postgres broker_test 2>>"$workdir/make.log" \
  || fail "createdb failed"

"${as_owner[@]}" "$bindir/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$workdir/standby" -R \
  -X stream --checkpoint=fast --no-sync >"$workdir/basebackup.log" 2>&1 \
  || fail "pg_basebackup failed: $(cat "$workdir/basebackup.log")"
start standby
standby_port="$started_port"

# Only now that the standby streams: every commit waits for its acknowledgement (set before, createdb would wait).
"$bindir/psql" -h 127.0.0.1 -p "$primary_port" -U postgres -d broker_test -qAtc \
  "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
# Wait (bounded, 30 s) until the primary sees its synchronous standby streaming.
for _ in $(seq 1 300); do
  state="$("$bindir/psql" -h 127.0.0.1 -p "$primary_port" -U postgres -d broker_test -Atc \
    "SELECT sync_state FROM pg_stat_replication" 2>/dev/null || true)"
  [ "$state" = "sync" ] && break
  sleep 0.1
done
[ "$state" = "sync" ] || fail "the standby is not streaming synchronously ('$state')"
echo "primary=$primary_port standby=$standby_port" | tee "$workdir/ports"
