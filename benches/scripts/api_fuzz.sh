#!/bin/sh
# Schema-driven fuzzing of the whole API with schemathesis (PyPI), from the server's own OpenAPI
# document, against real servers on loopback: a server with a token, fuzzed once with the token
# and once without, and an open server (no token, no key: the mode whose writes are held to
# JSON, JSON Lines or multipart and to the server's own origin), the crawl queue excluded (it
# would crawl). Then counts, from the servers' logs, the requests, the server errors and the
# answers whose status the document does not list.
#
#   pip install schemathesis
#   sh benches/scripts/api_fuzz.sh BINARY WORK_DIR EXAMPLES SECONDS_PER_RUN
#
# RUNS (environment) picks some of the runs: with-token, without-token, open-server. The open
# server is fuzzed without generated credentials (it has no keys: any presented one is 401) and
# without the key routes (a key created there would close it: the first key is an admin key).
set -eu
bin=$1
work=$2
examples=$3
seconds=$4
rm -rf "$work"
mkdir -p "$work"
servers=""
trap 'kill $servers 2>/dev/null' EXIT
for mode in token open; do
    "$bin" --data-dir "$work/$mode" import --library fx tests/fixtures/corpus.jsonl > /dev/null 2>&1 ||
        test $? -eq 3
done
"$bin" --data-dir "$work/token" serve --listen 127.0.0.1:18801 --token fuzz-token \
    > "$work/server-token.log" 2>&1 &
servers="$servers $!"
"$bin" --data-dir "$work/open" serve --listen 127.0.0.1:18802 > "$work/server-open.log" 2>&1 &
servers="$servers $!"
sleep 2
for run in ${RUNS:-with-token without-token open-server}; do
    port=18801
    header=""
    security=true
    excluded='^/api/v1/queue'
    case $run in
        with-token) header="Authorization: Bearer fuzz-token" ;;
        open-server) port=18802 security=false excluded='^/api/v1/(queue|keys)' ;;
    esac
    schemathesis run "http://127.0.0.1:$port/api/v1/openapi.json" \
        --checks not_a_server_error,status_code_conformance \
        --exclude-path-regex "$excluded" \
        --max-examples "$examples" --max-time "$seconds" \
        --generation-with-security-parameters "$security" \
        ${header:+-H "$header"} > "$work/schemathesis-$run.txt" 2>&1 || true
    tail -n 12 "$work/schemathesis-$run.txt"
done
cat "$work/server-token.log" "$work/server-open.log" > "$work/server.log"
python3 benches/scripts/api_fuzz_report.py "$work/server.log" crates/api/src/openapi.json
