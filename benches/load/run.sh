#!/usr/bin/env bash
# Mixed loopback load on a release server: checks, searches and ingests at once, 64 connections
# in all, for DURATION seconds; RSS of the server sampled every 5 s.
#
#   benches/load/run.sh CORPUS.jsonl.gz [DURATION] [WORK_DIR]
#
# Needs wrk (apt-get install wrk) and target/release/dupfinder.
set -euo pipefail
corpus=$1
duration=${2:-60}
work=${3:-/tmp/h-load}
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../../target/release/dupfinder
port=18090
rm -rf "$work" && mkdir -p "$work/requests"
python3 "$here/prepare.py" "$corpus" "$work/requests"
/usr/bin/time -f "import: %e s, max RSS %M KB" \
  "$bin" --data-dir "$work/data" import --library acl "$work/requests/library.jsonl" \
  > "$work/import.log" 2>&1 || true
tail -3 "$work/import.log"
DUPFINDER_LOG=warn "$bin" --data-dir "$work/data" serve --listen 127.0.0.1:$port 2> "$work/serve.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
until curl -sf http://127.0.0.1:$port/healthz > /dev/null; do sleep 0.2; done
echo "server pid $server; rss before: $(grep VmRSS /proc/$server/status)"
(
  while kill -0 $server 2>/dev/null; do
    echo "$(date +%s) $(grep VmRSS /proc/$server/status | awk '{print $2}')"
    sleep 5
  done
) > "$work/rss.log" &
sampler=$!
url=http://127.0.0.1:$port
wrk -t2 -c32 -d${duration}s --timeout 30s -s "$here/mixed.lua" $url -- check  "$work/requests/checks.txt"  > "$work/check.out" &
a=$!
wrk -t1 -c24 -d${duration}s --timeout 30s -s "$here/mixed.lua" $url -- search "$work/requests/queries.txt" > "$work/search.out" &
b=$!
wrk -t1 -c8  -d${duration}s --timeout 30s -s "$here/mixed.lua" $url -- ingest "$work/requests/ingests.txt" > "$work/ingest.out" &
c=$!
wait $a $b $c
echo "rss after: $(grep VmRSS /proc/$server/status)"
kill $sampler 2>/dev/null || true
for k in check search ingest; do
  grep -E "Requests/sec|^$k:" "$work/$k.out"
done
curl -s $url/metrics | grep -E 'dupfinder_http_requests_total' | grep -v '^#'
echo "rss samples (KB):"; awk '{print $2}' "$work/rss.log" | tr '\n' ' '; echo
kill -TERM $server; wait $server; echo "server exit $?"
