# shellcheck shell=bash
# bench/run's peer (row 1p): django-allauth's headless provider-token sign-in under gunicorn, beside scenario 1.
# Sourced by bench/run; defines peer_venv, peer_start, peer_stop, peer_cpu_ticks and peer_served. Uses say, die,
# stop_pid and $WORK from bench/run.
#
# The venv is made once with pip from PyPI (bench/peer/requirements.txt, every version pinned) under
# BENCH_PEER_VENV (default ~/.cache/broker-bench/peer-<hash of the requirements>), and reused by later runs, which
# need no network then. Only loopback addresses: gunicorn listens on 127.0.0.1, allauth fetches the stub's JWKS.

PEER_DIR=${PEER_DIR:-$ROOT/bench/peer}
PEER_PID=""
PEER_URL=""
PEER_MISSING=""

# peer_venv: sets PEER_PYTHON, or PEER_MISSING (and returns 1) when the venv cannot be made.
peer_venv() {
  local hash venv
  hash=$(sha256sum "$PEER_DIR/requirements.txt" | cut -c1-12)
  venv=${BENCH_PEER_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/broker-bench/peer-$hash}
  if [[ ! -x $venv/bin/gunicorn || ! -f $venv/.complete ]]; then
    say "peer: making its venv in $venv (pip install -r bench/peer/requirements.txt)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! python3 -m venv "$venv" >"$WORK/peer-venv.log" 2>&1; then
      PEER_MISSING="no Python venv (apt-get install python3-venv): $(tail -1 "$WORK/peer-venv.log")"
      return 1
    fi
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$PEER_DIR/requirements.txt" \
      >>"$WORK/peer-venv.log" 2>&1; then
      PEER_MISSING="pip install of bench/peer/requirements.txt failed: $(tail -1 "$WORK/peer-venv.log")"
      rm -rf "$venv"
      return 1
    fi
    touch "$venv/.complete"
  fi
  PEER_PYTHON=$venv/bin/python
}

# peer_start STUB_URL: a fresh SQLite database with allauth's schema, and gunicorn with one worker per core on a
# free loopback port. Sets PEER_PID, PEER_URL.
peer_start() {
  local stub=$1 port
  export PEER_STUB_URL=$stub PEER_DATABASE=$WORK/peer.sqlite PEER_JWT_KEY=$WORK/peer-jwt.pem
  PEER_SECRET_KEY=$(openssl rand -hex 32)
  export PEER_SECRET_KEY
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PEER_JWT_KEY" 2>/dev/null
  (cd "$PEER_DIR" && DJANGO_SETTINGS_MODULE=peer_settings "$PEER_PYTHON" -m django migrate --noinput \
    >"$WORK/peer-migrate.log" 2>&1) || die "peer: migrate failed: $(tail -3 "$WORK/peer-migrate.log")"
  port=$("$PEER_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # The access log is the peer's counter of served sign-ins (the broker counts its own on /metrics, and logs
  # every request too).
  (cd "$PEER_DIR" && exec "$(dirname "$PEER_PYTHON")/gunicorn" --workers "$(nproc)" --bind "127.0.0.1:$port" \
    --access-logfile "$WORK/peer-access.log" --access-logformat '%(s)s %(U)s' peer_wsgi:application \
    >"$WORK/peer.out" 2>"$WORK/peer.err") &
  PEER_PID=$!
  PEER_URL=http://127.0.0.1:$port
  for _ in $(seq 300); do
    if "$PEER_PYTHON" -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; then
      return 0
    fi
    kill -0 "$PEER_PID" 2>/dev/null || die "peer: gunicorn exited: $(tail -5 "$WORK/peer.err")"
    sleep 0.1
  done
  die "peer: gunicorn did not start"
}

peer_stop() {
  stop_pid "$PEER_PID"
  PEER_PID=""
}

# utime + stime of gunicorn's master and its workers, in clock ticks.
peer_cpu_ticks() {
  local pid total=0 ticks
  for pid in "$PEER_PID" $(pgrep -P "$PEER_PID" || true); do
    ticks=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }') || ticks=0
    total=$((total + ${ticks:-0}))
  done
  echo "$total"
}

# The sign-in requests the peer answered so far, by status (its access log), in the shape of benchctl.py count.
peer_served() {
  awk '$2 == "/_allauth/app/v1/auth/provider/token" { n[$1]++; total++ }
    END { printf "{\"total\": %d, \"status\": {", total; sep = ""
          for (s in n) { printf "%s\"%s\": %d", sep, s, n[s]; sep = ", " }; print "}}" }' "$WORK/peer-access.log"
}

PEER_PATH=/_allauth/app/v1/auth/provider/token

# peer_quiet: waits (at most 30 s) until the access log has not grown for a second: gunicorn's sync workers go
# on answering the requests already queued when wrk stops, so CPU and counts are read once those are done.
peer_quiet() {
  local before after
  for _ in $(seq 30); do
    before=$(wc -l <"$WORK/peer-access.log")
    sleep 1
    after=$(wc -l <"$WORK/peer-access.log")
    [[ $before == "$after" ]] && return 0
  done
}

# Users in the peer's database.
peer_users() { sqlite3 "$PEER_DATABASE" 'SELECT count(*) FROM auth_user'; }

# peer_status_kib KEY: the sum over gunicorn's master and workers of a /proc/PID/status figure (VmRSS, VmHWM).
peer_status_kib() {
  local pid total=0 kib
  for pid in "$PEER_PID" $(pgrep -P "$PEER_PID" || true); do
    kib=$(awk -v key="$1:" '$1 == key { print $2 }' "/proc/$pid/status" 2>/dev/null) || kib=0
    total=$((total + ${kib:-0}))
  done
  echo "$total"
}

# peer_scenario ID NAME: the peer's row, with scenario 1's tokens (google-pool.txt), connections and length. The
# pool's users sign up first (each body once), then a check that a sign-in is a real one (benchctl.py peer-check),
# a 3-second warm-up, the timed run, and a check that the run created no user (every sign-in was a returning one).
peer_scenario() {
  local id=$1 name=$2 check users0 users1 count0 count1 cpu0 cpu1 saved_url=$BROKER_URL
  py "$LIB/benchctl.py" peer-bodies --bodies "$WORK/google-pool.txt" --out "$WORK/peer-pool.txt"
  peer_start "$STUB_URL"
  say "peer: django-allauth headless at $PEER_URL; signing the pool's $POOL users up"
  py "$LIB/benchctl.py" signin --broker "$PEER_URL" --path "$PEER_PATH" --bodies "$WORK/peer-pool.txt" \
    --threads 4 >/dev/null
  check=$(py "$LIB/benchctl.py" peer-check --peer "$PEER_URL" --path "$PEER_PATH" --bodies "$WORK/peer-pool.txt" \
    --limit 5) || die "peer: its sign-in is not a sign-in"
  say "peer: $check"
  users0=$(peer_users)
  BROKER_URL=$PEER_URL  # run_wrk's target
  run_wrk "$WORK/wrk-$id-warm.out" "$WORK/peer-pool.txt" "$PEER_PATH" post "$CONNECTIONS" 3
  peer_quiet
  speed "$WORK/speed-$id.txt"
  say "scenario $id: $name ($CONNECTIONS connections, ${DURATION} s)"
  count0=$(peer_served)
  cpu0=$(peer_cpu_ticks)
  run_wrk "$WORK/wrk-$id.out" "$WORK/peer-pool.txt" "$PEER_PATH" post "$CONNECTIONS" "$DURATION"
  peer_quiet
  count1=$(peer_served)
  cpu1=$(peer_cpu_ticks)
  BROKER_URL=$saved_url
  users1=$(peer_users)
  [[ $users0 == "$users1" && $users1 == "$POOL" ]] ||
    die "peer: $users0 users before the timed run, $users1 after (want $POOL both times)"
  py "$LIB/report.py" record --id "$id" --name "$name" --wrk-out "$WORK/wrk-$id.out" --count0 "$count0" \
    --count1 "$count1" --floor peer --speed "$WORK/speed-$id.txt" --connections "$CONNECTIONS" --cpu0 "$cpu0" \
    --cpu1 "$cpu1" --clk-tck "$CLK_TCK" --hwm-kib "$(peer_status_kib VmHWM)" --rss-kib "$(peer_status_kib VmRSS)" \
    --signins-in-process "$(peer_served | py -c 'import json,sys; print(json.load(sys.stdin)["total"])')" \
    --extra '{"peer": true}' \
    --note "$(nproc) gunicorn sync workers; CPU and RSS summed over gunicorn's master and workers; every timed sign-in a returning user ($users1 users before and after); checked: $check" \
    >>"$RESULTS"
  tail -1 "$RESULTS" | py "$LIB/report.py" summary >&2
  peer_stop
}
