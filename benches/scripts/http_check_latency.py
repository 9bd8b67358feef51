#!/usr/bin/env python3
"""Check latency over HTTP: sends N corpus texts one after another to a running dupfinder
(keep-alive connection) and prints client-side and server-side (took_ms) percentiles, plus how
many checks found the document itself and how many found anything.

usage: http_check_latency.py URL CORPUS.jsonl.gz LIBRARY N [--skip K] [--expect-self]

LIBRARY `*` names no library: the check runs against every library of the server.
"""
import gzip, http.client, json, statistics, sys, time, urllib.parse

def main():
    url, corpus, library, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    skip = int(sys.argv[sys.argv.index("--skip") + 1]) if "--skip" in sys.argv else 0
    expect_self = "--expect-self" in sys.argv
    parts = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    client, server, found_self, found_any, sent = [], [], 0, 0, 0
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i < skip:
                continue
            doc = json.loads(line)
            if len(doc.get("text", "").split()) < 50:
                continue
            body = json.dumps({"text": doc["text"], **({} if library == "*" else {"libraries": [library]})})
            t = time.perf_counter()
            conn.request("POST", "/api/v1/check", body, {"Content-Type": "application/json"})
            answer = json.loads(conn.getresponse().read())
            client.append((time.perf_counter() - t) * 1000)
            server.append(answer["took_ms"])
            ids = [m["doc_id"] for m in answer["matches"]]
            found_self += doc["id"] in ids
            found_any += bool(ids)
            sent += 1
            if sent == n:
                break
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, round((len(xs) - 1) * p))]
    print(json.dumps({
        "checks": sent, "found_self": found_self, "found_any": found_any,
        "client_ms": {"p50": round(q(client, .5), 3), "p99": round(q(client, .99), 3), "mean": round(statistics.mean(client), 3)},
        "server_ms": {"p50": round(q(server, .5), 3), "p99": round(q(server, .99), 3)},
    }))

if __name__ == "__main__":
    main()
