-- wrk: POST one OpenAI chat request (GATEWAY_BODY) with a bearer key (GATEWAY_KEY); at the end,
-- print one line "RESULT {json}" with the counts and latency percentiles in microseconds.
wrk.method = "POST"
wrk.body = os.getenv("GATEWAY_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("GATEWAY_KEY") or "none")

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('RESULT {"requests": %d, "seconds": %.3f, "p50": %d, "p99": %d, "errors": %d, "bad_status": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), errors, summary.errors.status))
end
