# Sourced by bench/counts and bench/together: scenario 1's stub, service account, config and pool of 1,000
# returning Google users, and brokers started on fresh SQLite databases in $WORK. The caller sets ROOT, LIB and
# WORK, defines py and say, and stops $STUB_PID and the brokers on exit. Only loopback addresses.

# Starts the stub providers from BIN_DIR ($1) and sets STUB_PID and STUB_URL; then the service account, the
# broker config ($WORK/config.json) and the pool ($WORK/pool.txt).
s1_prepare() {
  "$1/stub-providers" --host 127.0.0.1 --port 0 >"$WORK/stub.out" 2>"$WORK/stub.err" &
  STUB_PID=$!
  STUB_URL=""
  for _ in $(seq 100); do
    STUB_URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/stub.out" 2>/dev/null | head -1 || true)
    [[ -n $STUB_URL ]] && break
    sleep 0.1
  done
  [[ -n $STUB_URL ]] || { say "the stub did not start: $(tail -3 "$WORK/stub.err")"; return 1; }
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/sa.pem" 2>/dev/null
  py "$LIB/benchctl.py" service-account --pem "$WORK/sa.pem" --out "$WORK/sa.json"
  py "$LIB/benchctl.py" config --stub "$STUB_URL" --service-account "$WORK/sa.json" --out "$WORK/config.json"
  py "$LIB/benchctl.py" mint --stub "$STUB_URL" --kind google-pool --count 1000 --out "$WORK/pool.txt"
}

# s1_broker NAME BIN_DIR [CONFIG]: starts BIN_DIR's broker with CONFIG (default $WORK/config.json) on
# $WORK/NAME.sqlite, waits until it listens, signs the pool's users up (each body once), and sets S1_PID and S1_URL.
s1_broker() {
  local name=$1 bin=$2 config=${3:-$WORK/config.json} port=""
  "$bin/broker" serve --config "$config" --database "$WORK/$name.sqlite" --host 127.0.0.1 --port 0 \
    2>"$WORK/$name.log" &
  S1_PID=$!
  for _ in $(seq 300); do
    port=$(grep -m1 '"msg":"listening"' "$WORK/$name.log" 2>/dev/null | grep -o '"port":"\?[0-9]*' | grep -o '[0-9]*$' || true)
    [[ -n $port ]] && break
    sleep 0.1
  done
  [[ -n $port ]] || { say "broker $name did not start: $(tail -3 "$WORK/$name.log")"; return 1; }
  S1_URL=http://127.0.0.1:$port
  py "$LIB/benchctl.py" signin --broker "$S1_URL" --path /v1/signin/google --bodies "$WORK/pool.txt" --threads 4 >/dev/null
}

# s1_served URL: the sign-ins the broker at URL has counted (its /metrics).
s1_served() {
  py "$LIB/benchctl.py" count --broker "$1" --route '/v1/signin/{provider}' |
    py -c 'import json,sys; print(json.load(sys.stdin)["total"])'
}

# s1_wrk URL SECONDS CONNECTIONS OUT [COMMAND...]: scenario 1's load on URL from wrk, its output into OUT; a
# COMMAND given runs wrk (`perf stat ... --`, which then counts while wrk runs). BENCH_PROCESSES and
# BENCH_PROCESS, when set, give this wrk its share of the pool (load.lua).
s1_wrk() {
  local url=$1 seconds=$2 connections=$3 out=$4
  shift 4
  BENCH_BODIES=$WORK/pool.txt BENCH_PATH=/v1/signin/google BENCH_MODE=post BENCH_THREADS=2 \
    "$@" wrk -t2 -c"$connections" -d"${seconds}s" --timeout 10s -s "$LIB/load.lua" "$url" >"$out" 2>&1
}
