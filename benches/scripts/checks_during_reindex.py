#!/usr/bin/env python3
"""Concurrent exact-copy checks while the library is being re-indexed.

Starts a re-index job (POST /api/v1/libraries/{lib}/reindex), waits until it is running, then
sends N checks of documents of the corpus, C at a time, re-starting re-index jobs back to back
until every check was answered. Reports how many were answered 2xx, how many found their own
document as a duplicate, which statistics generations answered them, and how many checks ran
while a re-index was in progress.

The checks start once the first job has signed START (a share, default 0.9) of the documents,
so that the switch to the new generation happens while they run.

usage: checks_during_reindex.py URL CORPUS LIBRARY [N=1000] [C=32] [START=0.9]
"""

import gzip
import json
import statistics
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def request(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def main():
    base, corpus, library = sys.argv[1], sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 32
    start_share = float(sys.argv[6]) if len(sys.argv) > 6 else 0.9

    docs = []
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            if len(doc.get("text", "").split()) >= 50:
                docs.append((str(doc["id"]), doc["text"]))
            if len(docs) >= n:
                break

    stop = threading.Event()
    jobs = []  # (job id, start, end, state, generation)

    def reindex_loop():
        while not stop.is_set():
            status, job = request(f"{base}/api/v1/libraries/{library}/reindex", "POST")
            assert status == 202, (status, job)
            started = time.monotonic()
            while True:
                _, job = request(f"{base}/api/v1/jobs/{job['job']}")
                if job["state"] not in ("queued", "running"):
                    break
                time.sleep(0.005)
            jobs.append((job["job"], started, time.monotonic(), job["state"], job.get("generation")))

    _, job = request(f"{base}/api/v1/libraries/{library}/reindex", "POST")
    while True:
        _, status = request(f"{base}/api/v1/jobs/{job['job']}")
        if status["state"] == "running" and status["done"] >= start_share * status["total"]:
            break
        time.sleep(0.002)
    first_job_started = time.monotonic()
    jobs_thread = threading.Thread(target=reindex_loop)
    jobs_thread.start()

    def check(item):
        doc_id, text = item
        started = time.monotonic()
        status, answer = request(f"{base}/api/v1/check", "POST",
                                 {"text": text, "libraries": [library]})
        ended = time.monotonic()
        found = status == 200 and any(
            m["doc_id"] == doc_id and m["verdict"] == "duplicate" for m in answer["matches"])
        generation = answer.get("generations", {}).get(library) if status == 200 else None
        return doc_id, status, found, generation, started, ended, (ended - started) * 1000

    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(check, docs))
    stop.set()
    jobs_thread.join()

    # A check overlapped a re-index when it ran inside a job's window (the first job's window
    # starts when it was seen running).
    windows = [(first_job_started, jobs[0][2])] + [(s, e) for _, s, e, _, _ in jobs[1:]] if jobs else []
    during = sum(1 for r in results if any(s <= r[5] and r[4] <= e for s, e in windows))
    answered = sum(1 for r in results if r[1] == 200)
    found = sum(1 for r in results if r[2])
    generations = {}
    for r in results:
        generations[r[3]] = generations.get(r[3], 0) + 1
    latencies = sorted(r[6] for r in results)
    print(json.dumps({
        "checks": len(results),
        "answered_2xx": answered,
        "found_as_duplicate": found,
        "checks_during_a_reindex": during,
        "answered_by_generation": {str(k): v for k, v in sorted(generations.items(), key=str)},
        "reindex_jobs_finished_during_the_run": [
            {"job": j, "state": st, "generation": g, "seconds": round(e - s, 2)}
            for j, s, e, st, g in jobs],
        "latency_ms": {
            "p50": round(statistics.median(latencies), 2),
            "p99": round(latencies[int(len(latencies) * 0.99) - 1], 2),
            "max": round(latencies[-1], 2),
        },
        "concurrency": concurrency,
    }, indent=2))
    misses = [r[0] for r in results if not r[2]]
    if misses:
        print("not found:", misses[:20], file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
