-- wrk script: cycles through one kind of request, read from a file prepared by prepare.py.
--   wrk ... -s mixed.lua URL -- check   FILE   (POST /api/v1/check, one JSON body per line)
--   wrk ... -s mixed.lua URL -- search  FILE   (GET, one path per line)
--   wrk ... -s mixed.lua URL -- ingest  FILE   (POST a document with a fresh id; one JSON text per line)
-- At the end it prints every status seen, so that any non-2xx answer is listed.

local threads = {}
local counter = 1

function setup(thread)
   thread:set("id", counter)
   table.insert(threads, thread)
   counter = counter + 1
end

function init(args)
   kind = args[1]
   lines = {}
   for line in io.lines(args[2]) do
      table.insert(lines, line)
   end
   statuses = {}
   n = (id * 7919) % #lines
   sent = 0
end

function request()
   n = n % #lines + 1
   sent = sent + 1
   local line = lines[n]
   if kind == "check" then
      return wrk.format("POST", "/api/v1/check", {["Content-Type"] = "application/json"}, line)
   elseif kind == "search" then
      return wrk.format("GET", line)
   else
      local body = '{"id":"load-' .. id .. '-' .. sent .. '","text":' .. line .. '}'
      return wrk.format("POST", "/api/v1/libraries/acl/documents",
                        {["Content-Type"] = "application/json"}, body)
   end
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
   local total = {}
   for _, thread in ipairs(threads) do
      local seen = thread:get("statuses")
      for status, count in pairs(seen) do
         total[status] = (total[status] or 0) + count
      end
   end
   local kind = threads[1]:get("kind")
   io.write(string.format("%s: requests %d, errors (socket) connect %d read %d write %d timeout %d\n",
      kind, summary.requests, summary.errors.connect, summary.errors.read,
      summary.errors.write, summary.errors.timeout))
   for status, count in pairs(total) do
      io.write(string.format("%s: status %d x %d\n", kind, status, count))
   end
   io.write(string.format("%s: latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", kind,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000,
      latency:percentile(99) / 1000, latency.max / 1000))
end
