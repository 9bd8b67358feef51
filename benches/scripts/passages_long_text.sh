#!/bin/sh
# A long check with and without passages: one short ACL abstract (1984.bcs-1.10, 433
# characters) repeated to 1.2, 2.4 and 4.9 MB, checked against a library of the first 2,000
# ACL abstracts. Prints the server-side time (`took_ms`) and the number of passages.
#
#   sh benches/scripts/passages_long_text.sh BINARY ACL_ABSTRACTS.jsonl.gz WORK_DIR
set -eu
bin=$1
corpus=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
zcat "$corpus" | head -2000 > "$work/acl2000.jsonl"
# Exit status 3: two of these abstracts are too short to index, which is expected.
"$bin" --data-dir "$work/data" import --library acl "$work/acl2000.jsonl" > /dev/null 2>&1 ||
    test $? -eq 3
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
docs = [json.loads(line) for line in open(f"{work}/acl2000.jsonl")]
text = next(d["text"] for d in docs if d["id"] == "1984.bcs-1.10")
long = "\n".join([text] * (4_900_000 // (len(text.encode()) + 1) + 1))
for mb in ("1.2", "2.4", "4.9"):
    open(f"{work}/long_{mb}.txt", "w").write(long[: int(float(mb) * 1e6)])
PY
for mb in 1.2 2.4 4.9; do
    for passages in "" --passages; do
        "$bin" --data-dir "$work/data" check --library acl $passages "$work/long_$mb.txt" > "$work/report.json"
        python3 -c "
import json, sys
r = json.load(open('$work/report.json'))
n = sum(len(m.get('passages') or []) for m in r['matches'])
print('$mb MB ${passages:-no passages}: took_ms', round(r['took_ms']), 'passages', n)"
    done
done
