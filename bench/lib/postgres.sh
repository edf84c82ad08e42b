# A throwaway PostgreSQL cluster for bench/run's scenarios 1pg and 1pg2; sourced by bench/run.
#
# The approach of scripts/with-postgres.sh (which wraps a whole command and starts two clusters set up for the
# test suites, with fsync off): the server binaries from PATH or the newest /usr/lib/postgresql/*/bin, initdb in
# a new temporary directory (as the `postgres` OS user when running as root, since PostgreSQL refuses to run as
# root), trust authentication, a free loopback port and a Unix socket in that directory. Here the cluster keeps
# PostgreSQL's durable defaults (fsync and synchronous_commit on, like the SQLite scenarios' synchronous=FULL)
# unless BENCH_PG_FSYNC=off.
#
#   pg_find                 sets PG_BINDIR and PG_AS_OWNER; or PG_MISSING (why not) and returns 1
#   pg_start                makes and starts the cluster; sets PG_DIR, PG_PORT; returns 1 (PG_MISSING set) if
#                           it cannot
#   pg_createdb NAME        an empty database; prints its postgres:// URL
#   pg_sql DATABASE SQL     runs SQL with psql, prints the unaligned result
#   pg_conflicts_since N    serialization failures and deadlocks in the server log after its first N lines
#   pg_cpu_ticks            utime+stime of every process of the cluster: the postmaster, its children alive now,
#                           and the children it has reaped (its cutime+cstime)
#   pg_stop                 stops the cluster (fast, then immediate); pg_remove deletes its directory

PG_BINDIR="" PG_DIR="" PG_PORT="" PG_MISSING=""
PG_AS_OWNER=()
PG_OWNER=$(id -un)

pg_find() {
  local candidate
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    PG_BINDIR=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
  else
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
      if [[ -x $candidate/pg_ctl && -x $candidate/initdb && -x $candidate/postgres ]]; then
        PG_BINDIR=$candidate
        break
      fi
    done
  fi
  if [[ -z $PG_BINDIR ]]; then
    PG_MISSING="no PostgreSQL (apt-get install postgresql)"
    return 1
  fi
  if [[ $(id -u) == 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
      PG_MISSING="no PostgreSQL: running as root and there is no postgres user to run it as"
      return 1
    fi
    PG_OWNER=postgres
    if command -v runuser >/dev/null 2>&1; then
      PG_AS_OWNER=(runuser -u postgres --)
    else
      PG_AS_OWNER=(sudo -u postgres --)
    fi
  fi
}

pg_start() {
  local candidate
  PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/broker-bench-postgres.XXXXXX")
  chmod 755 "$PG_DIR"
  [[ $PG_OWNER == "$(id -un)" ]] || chown "$PG_OWNER" "$PG_DIR"
  if ! "${PG_AS_OWNER[@]}" "$PG_BINDIR/initdb" -D "$PG_DIR/data" --username=postgres --auth=trust --encoding=UTF8 \
      --locale=C --no-sync >"$PG_DIR/initdb.log" 2>&1; then
    PG_MISSING="initdb failed: $(tail -1 "$PG_DIR/initdb.log")"
    return 1
  fi
  for _ in 1 2 3 4 5 6 7 8; do
    candidate=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null && continue  # something answers there
    "${PG_AS_OWNER[@]}" sh -c "cat >> '$PG_DIR/data/postgresql.auto.conf'" <<CONF
listen_addresses = '127.0.0.1'
port = $candidate
unix_socket_directories = '$PG_DIR'
fsync = ${BENCH_PG_FSYNC:-on}
CONF
    if "${PG_AS_OWNER[@]}" "$PG_BINDIR/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t 60 start \
        >/dev/null 2>&1; then
      PG_PORT=$candidate
      return 0
    fi
  done
  PG_MISSING="PostgreSQL did not start: $(tail -1 "$PG_DIR/postgres.log" 2>/dev/null)"
  return 1
}

pg_createdb() {
  "$PG_BINDIR/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$1" || return 1
  echo "postgres://postgres@127.0.0.1:$PG_PORT/$1"
}

pg_sql() {
  "$PG_BINDIR/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$1" -Atc "$2"
}

pg_conflicts_since() {
  tail -n +"$(($1 + 1))" "$PG_DIR/postgres.log" | grep -c -E 'could not serialize access|deadlock detected' || true
}

pg_cpu_ticks() {
  python3 - "$PG_DIR/data/postmaster.pid" <<'EOF'
import os, sys
postmaster = int(open(sys.argv[1]).readline())
def fields(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()  # after "pid (comm)": state ppid ... utime stime cutime cstime
mine = fields(postmaster)
total = sum(int(x) for x in mine[11:15])  # its own time and that of the children it has waited for
for name in os.listdir("/proc"):
    if name.isdigit() and int(name) != postmaster:
        try:
            stat = fields(name)
        except OSError:
            continue  # gone meanwhile: a backend that exited is in the postmaster's cutime
        if int(stat[1]) == postmaster:
            total += int(stat[11]) + int(stat[12])
print(total)
EOF
}

pg_stop() {
  [[ -n $PG_DIR && -f $PG_DIR/data/postmaster.pid ]] || return 0
  "${PG_AS_OWNER[@]}" "$PG_BINDIR/pg_ctl" -D "$PG_DIR/data" stop -m fast -w -t 20 >/dev/null 2>&1 ||
    "${PG_AS_OWNER[@]}" "$PG_BINDIR/pg_ctl" -D "$PG_DIR/data" stop -m immediate -w >/dev/null 2>&1 || true
}

pg_remove() {
  [[ -n $PG_DIR ]] && rm -rf "$PG_DIR"
  PG_DIR=""
}
