#!/usr/bin/env python3
"""Check latency with and without the cross-language search, in the same run: sends N corpus
texts to a running dupfinder (keep-alive connection), each twice in a row — once with
"cross_language": false, once without (on) — alternating which goes first, and prints the server
time (took_ms) percentiles of both and the cross_language state answered.

usage: cross_language_latency.py URL CORPUS.jsonl.gz N [--skip K] [--library ID] [--lang ru|en]
"""
import gzip, http.client, json, statistics, sys, urllib.parse

def main():
    url, corpus, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    arg = lambda name: sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None
    skip = int(arg("--skip") or 0)
    library, lang = arg("--library"), arg("--lang")
    parts = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    times = {False: [], True: []}
    states, translated, sent = set(), 0, 0
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i < skip:
                continue
            doc = json.loads(line)
            if len(doc.get("text", "").split()) < 50:
                continue
            order = [False, True] if sent % 2 == 0 else [True, False]
            for cross in order:
                body = {"text": doc["text"], "store": False}
                if library:
                    body["libraries"] = [library]
                if lang:
                    body["lang"] = lang
                if not cross:
                    body["cross_language"] = False
                conn.request("POST", "/api/v1/check", json.dumps(body), {"Content-Type": "application/json"})
                answer = json.loads(conn.getresponse().read())
                times[cross].append(answer["took_ms"])
                if cross:
                    states.add(answer.get("cross_language"))
                    translated += any("translation" in m["methods"] for m in answer["matches"])
            sent += 1
            if sent == n:
                break
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, round((len(xs) - 1) * p))]
    row = lambda xs: {"p50": round(q(xs, .5), 3), "p90": round(q(xs, .9), 3), "p99": round(q(xs, .99), 3), "mean": round(statistics.mean(xs), 3)}
    print(json.dumps({"checks": sent, "cross_language": sorted(map(str, states)),
                      "with_translated_match": translated,
                      "off_ms": row(times[False]), "on_ms": row(times[True])}))

if __name__ == "__main__":
    main()
