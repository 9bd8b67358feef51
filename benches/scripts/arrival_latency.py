#!/usr/bin/env python3
"""What an arriving document costs: 40 documents of a corpus file (seeded choice), each with one
word added, sent one at a time to a running `dupfinder serve` as new documents of LIBRARY
(`ingest`), or as checks against it (`check`); prints the median and p90 client wall time.

    python3 benches/scripts/arrival_latency.py http://127.0.0.1:8080 LIBRARY CORPUS.jsonl ingest TAG
    python3 benches/scripts/arrival_latency.py http://127.0.0.1:8080 LIBRARY CORPUS.jsonl check

`check` also prints the median of the answers' own `took_ms` (server-side). A server run with
`DUPFINDER_LOG=info,dupfinder::dedup=debug` logs each arrival's `check_ms` and `rest_ms`: the
time its incremental check adds to the ingest, server-side. Run `ingest` against a server with `[dedup] incremental = true` (the default) and one with
`false`, on a library deduplicated once, with a new TAG each time (the document ids).
"""

import json
import random
import sys
import time
import urllib.request


def main():
    base, library, corpus, mode = sys.argv[1:5]
    tag = sys.argv[5] if len(sys.argv) > 5 else "a"
    with open(corpus, encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    random.seed(7)
    picked = random.sample(docs, 40)
    times = []
    took = []
    for i, doc in enumerate(picked):
        text = doc["text"] + " Revised."
        if mode == "ingest":
            path = f"/api/v1/libraries/{library}/documents"
            body = {"id": f"arrival-{tag}-{i}", "text": text, "lang": doc.get("lang")}
        else:
            path = "/api/v1/check"
            body = {"text": text, "libraries": [library]}
        request = urllib.request.Request(
            base + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request) as response:
            answer = json.loads(response.read())
        if "took_ms" in answer:
            took.append(answer["took_ms"])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    summary = {
        "mode": mode,
        "n": len(times),
        "median_ms": round(times[len(times) // 2], 1),
        "p90_ms": round(times[int(len(times) * 0.9)], 1),
    }
    if took:
        took.sort()
        summary["server_took_median_ms"] = took[len(took) // 2]
        summary["server_took_p90_ms"] = took[int(len(took) * 0.9)]
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
