-- wrk script: each wrk thread owns one connection and replays the requests that bench.py
-- wrote for it to $DALEEL_BENCH_DATA/thread-N.lua, in order, checking every response.
--
--   requests[i] = {method, path, headers, body, expect}  -- expect: text the body must hold
--                                                         (unless gzipped: checked after)
--   cycle       = true: start over at the end (GETs); false: stop the thread (answers)
--
-- With one connection per thread, response() always belongs to the request last returned
-- by request(), so a thread can walk a learner's attempt step by step.

local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

function init(args)
  local data = dofile(os.getenv("DALEEL_BENCH_DATA") .. "/thread-" .. id .. ".lua")
  cycle = data.cycle
  prepared, expect = {}, {}
  for i, r in ipairs(data.requests) do
    prepared[i] = wrk.format(r[1], r[2], r[3], r[4])
    expect[i] = r[5]
  end
  current = 1
  responses, failed, unexpected, queries, most_queries, uncounted = 0, 0, 0, 0, 0, 0
  largest_body, exhausted = 0, 0
end

function request()
  return prepared[current]
end

function response(status, headers, body)
  responses = responses + 1
  if status >= 400 then
    failed = failed + 1
  elseif expect[current] and not headers["Content-Encoding"]
      and not string.find(body, expect[current], 1, true) then
    unexpected = unexpected + 1
  end
  local count = tonumber(headers["X-Bench-Queries"])
  if count then
    queries = queries + count
    if count > most_queries then most_queries = count end
  else
    uncounted = uncounted + 1
  end
  if #body > largest_body then largest_body = #body end
  current = current + 1
  if current > #prepared then
    if cycle then
      current = 1
    else
      exhausted = 1
      wrk.thread:stop()
    end
  end
end

function done(summary, latency, requests)
  local total = {responses = 0, failed = 0, unexpected = 0, queries = 0, uncounted = 0, exhausted = 0}
  local most, largest, progress = 0, 0, {}
  for _, thread in ipairs(threads) do
    table.insert(progress, thread:get("responses"))
    for name, _ in pairs(total) do
      total[name] = total[name] + thread:get(name)
    end
    most = math.max(most, thread:get("most_queries"))
    largest = math.max(largest, thread:get("largest_body"))
  end
  local errors = summary.errors
  io.write(string.format(
    "DALEEL-RESULT {\"requests\": %d, \"duration_us\": %d, \"bytes\": %d, " ..
    "\"socket_errors\": %d, \"timeouts\": %d, \"status_errors\": %d, " ..
    "\"responses\": %d, \"failed\": %d, \"unexpected\": %d, \"queries\": %d, " ..
    "\"most_queries\": %d, \"uncounted\": %d, \"largest_body\": %d, \"exhausted\": %d, " ..
    "\"p50_us\": %d, \"p90_us\": %d, \"p99_us\": %d, \"max_us\": %d, \"mean_us\": %.1f, " ..
    "\"progress\": [%s]}\n",
    summary.requests, summary.duration, summary.bytes,
    errors.connect + errors.read + errors.write, errors.timeout, errors.status,
    total.responses, total.failed, total.unexpected, total.queries,
    most, total.uncounted, largest, total.exhausted,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean, table.concat(progress, ", ")))
end
