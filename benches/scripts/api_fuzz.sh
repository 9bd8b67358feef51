#!/bin/sh
# Schema-driven fuzzing of the whole API with schemathesis (PyPI), from the server's own OpenAPI
# document, against a real server on loopback: once with the token, once without, the crawl
# queue excluded (it would crawl). Then counts, from the server's log, the requests, the server
# errors and the answers whose status the document does not list.
#
#   pip install schemathesis
#   sh benches/scripts/api_fuzz.sh BINARY WORK_DIR EXAMPLES SECONDS_PER_RUN
set -eu
bin=$1
work=$2
examples=$3
seconds=$4
port=18801
rm -rf "$work"
mkdir -p "$work"
"$bin" --data-dir "$work/data" import --library fx tests/fixtures/corpus.jsonl > /dev/null 2>&1 ||
    test $? -eq 3
"$bin" --data-dir "$work/data" serve --listen "127.0.0.1:$port" --token fuzz-token \
    > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 2
for token in with without; do
    header=""
    if [ $token = with ]; then header="Authorization: Bearer fuzz-token"; fi
    schemathesis run "http://127.0.0.1:$port/api/v1/openapi.json" \
        --checks not_a_server_error,status_code_conformance \
        --exclude-path-regex '^/api/v1/queue' \
        --max-examples "$examples" --max-time "$seconds" \
        ${header:+-H "$header"} > "$work/schemathesis-$token-token.txt" 2>&1 || true
    tail -n 12 "$work/schemathesis-$token-token.txt"
done
python3 benches/scripts/api_fuzz_report.py "$work/server.log" src/api/openapi.json
