#!/usr/bin/env bash
# Sends each PDF bomb of benches/scripts/pdf_bombs.py to a fresh release server and reports,
# per run: the answer's status and code and how long it took, the server's peak resident
# memory (VmHWM), its CPU time when answered and 5 s later (CPU still burning shows there), and
# how long it takes to exit on SIGTERM.
#
# The fourth run is the most a page may hold within the default bounds (it is read). The last
# two runs raise `max_pages` so that the 100,000 pages are read (a long extraction
# within the bounds): one stopped by a 2 s `timeout_seconds`, one by a SIGTERM sent 1 s after
# the upload.
#
#   cargo build --release
#   python3 benches/scripts/pdf_bombs.py /tmp/bombs
#   benches/scripts/pdf_bombs_rss.sh /tmp/bombs
set -euo pipefail
bombs=${1:?directory of the bombs}
binary=${BINARY:-target/release/dupfinder}
port=${PORT:-18431}
ticks=$(getconf CLK_TCK)

cpu_seconds() { # utime + stime of process $1, in seconds
    awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"
}

peak_mb() {
    awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"
}

# run FILE LABEL EXTRACT_CONFIG SIGTERM_AFTER_SECONDS(0: after the answer)
run() {
    local file=$1 label=$2 extra=$3 term_after=$4
    local data
    data=$(mktemp -d)
    printf '[extract]\npdftotext = ""\n%b' "$extra" >"$data/dupfinder.toml"
    "$binary" serve --config "$data/dupfinder.toml" --data-dir "$data/data" \
        --listen "127.0.0.1:$port" >"$data/log" 2>&1 &
    local server=$!
    for _ in $(seq 100); do
        curl -s "http://127.0.0.1:$port/healthz" >/dev/null && break
        sleep 0.1
    done
    local idle
    idle=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$server/status")
    local start stop_sent=""
    start=$(date +%s.%N)
    curl -s -o "$data/answer" -w '%{http_code}' \
        -F "file=@$bombs/$file;type=application/pdf" \
        "http://127.0.0.1:$port/api/v1/check" >"$data/status" &
    local client=$!
    if [ "$term_after" != 0 ]; then
        sleep "$term_after"
        stop_sent=$(date +%s.%N)
        kill -TERM "$server"
    fi
    wait "$client" || true
    local took
    took=$(echo "$(date +%s.%N) - $start" | bc)
    local answer code
    answer=$(cat "$data/status")
    code=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["code"])' \
        "$data/answer" 2>/dev/null || echo "-")
    local cpu_answer="-" cpu_later="-" peak="-"
    if kill -0 "$server" 2>/dev/null; then
        cpu_answer=$(cpu_seconds "$server")
        peak=$(peak_mb "$server")
    fi
    if [ -z "$stop_sent" ]; then
        sleep 5
        cpu_later=$(cpu_seconds "$server")
        peak=$(peak_mb "$server")
        stop_sent=$(date +%s.%N)
        kill -TERM "$server"
    fi
    wait "$server" || true
    local stopped
    stopped=$(echo "$(date +%s.%N) - $stop_sent" | bc)
    printf '| %s | %s | %s %s | %.2f s | %s MB (idle %s MB) | %s s | %s s | %.2f s |\n' \
        "$label" "$(du -h "$bombs/$file" | cut -f1)" "$answer" "$code" "$took" "$peak" "$idle" \
        "$cpu_answer" "$cpu_later" "$stopped"
    rm -rf "$data"
}

printf '| run | size | answer | answered in | peak RSS | CPU at answer | CPU 5 s later | exit after SIGTERM |\n'
printf '|---|---|---|---|---|---|---|---|\n'
run content_256m.pdf "content stream inflating to 256 MiB" "" 0
run content_2g.pdf "content stream inflating to 2 GiB" "" 0
run pages_100k.pdf "100,000 empty pages" "" 0
run content_120m.pdf "one page of 120 MiB (spaces around a line): within the bounds, read" "" 0
run pages_100k.pdf "100,000 pages read, timeout_seconds = 2" "max_pages = 200000\ntimeout_seconds = 2\n" 0
run pages_100k.pdf "100,000 pages read, SIGTERM after 1 s" "max_pages = 200000\n" 1
