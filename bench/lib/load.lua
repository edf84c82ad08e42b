-- wrk script for bench/run. Configured through the environment:
--   BENCH_BODIES   file with one line per request: a JSON body (mode "post") or a bearer token (mode "bearer")
--   BENCH_PATH     request path, e.g. /v1/signin/google
--   BENCH_MODE     "post" (POST the line as JSON) or "bearer" (GET with "Authorization: Bearer <line>")
--   BENCH_THREADS  wrk's -t, so each thread takes its own slice of the lines (single-use tokens stay single-use)
--   BENCH_PROCESSES, BENCH_PROCESS  several wrk processes at once (one per broker instance, scenario 1pg2): how
--                  many, and which one this is (0, 1, ...); each process's threads take their slices of its own
--                  share of the lines, so no two processes send the same line (the same user) at the same time
--   BENCH_DELAY_MS mean pause before each request on a connection (0: as fast as possible); fractional values
--                  are honoured on average (wrk's delay() takes whole milliseconds)
--   BENCH_ONCE     "1": every line is sent once; a thread whose lines are used up stops sending (its connections
--                  wait out the run) and done() reports it as "exhausted"
--   BENCH_QUANTILES file to write this run's latency percentiles to, 0.1 % apart ("percentile microseconds" per
--                  line, 0.1 to 100): bench/run merges two wrk processes' latencies from them (scenario 1pg2)
-- done() prints one line "BENCHJSON {...}" with the counts and latency percentiles (microseconds).

local path = os.getenv("BENCH_PATH") or "/"
local mode = os.getenv("BENCH_MODE") or "post"
local file = os.getenv("BENCH_BODIES")
local nthreads = tonumber(os.getenv("BENCH_THREADS") or "1")
local nprocesses = tonumber(os.getenv("BENCH_PROCESSES") or "1")
local process = tonumber(os.getenv("BENCH_PROCESS") or "0")
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
local once = os.getenv("BENCH_ONCE") == "1"
local quantiles = os.getenv("BENCH_QUANTILES") or ""

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("thread_id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local requests = {}
local position = 0
wrapped = 0 -- globals: done() reads them through thread:get
exhausted = 0

function init(args)
  local line_number = 0
  for line in io.lines(file) do
    if line ~= "" then
      if line_number % (nthreads * nprocesses) == process * nthreads + thread_id then
        if mode == "bearer" then
          requests[#requests + 1] = wrk.format("GET", path, { ["Authorization"] = "Bearer " .. line }, nil)
        else
          requests[#requests + 1] = wrk.format("POST", path, { ["Content-Type"] = "application/json" }, line)
        end
      end
      line_number = line_number + 1
    end
  end
  if #requests == 0 then
    error("no request lines for thread " .. tostring(thread_id) .. " in " .. tostring(file))
  end
  math.randomseed(1000 + thread_id)
end

function request()
  position = position + 1
  if position > #requests then
    position = 1
    wrapped = wrapped + 1
  end
  return requests[position]
end

local reserved = 0 -- requests delay() let through (once): several connections wait between delay() and request()

if delay_ms > 0 or once then
  local whole = math.floor(delay_ms)
  local fraction = delay_ms - whole
  -- wrk calls delay() before request() for every request (the first of each connection too), so counting here,
  -- not in request(), lets each line through once however many connections are between the two calls.
  function delay()
    if once then
      reserved = reserved + 1
      if reserved > #requests then
        exhausted = 1
        return 3600 * 1000 -- never again within a run
      end
    end
    if math.random() < fraction then return whole + 1 end
    return whole
  end
end

function done(summary, latency, _)
  local wraps = 0
  local spent = 0
  for _, thread in ipairs(threads) do
    wraps = wraps + (thread:get("wrapped") or 0)
    spent = spent + (thread:get("exhausted") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,' ..
    '"status_errors":%d,"timeouts":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,"wrapped":%d,"exhausted":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean, wraps, spent))
  -- wrk's Lua API gives percentiles, not the histogram's counts, so the distribution goes out as 1,000 of them.
  if quantiles ~= "" then
    local out = assert(io.open(quantiles, "w"))
    for step = 1, 1000 do
      out:write(string.format("%.1f %d\n", step / 10, latency:percentile(step / 10)))
    end
    out:close()
  end
end
