#!/usr/bin/env python3
"""Search latency over HTTP: prints the top hits of each query of a mix, then sends the mix
REPS times in turn to a running dupfinder (one keep-alive connection, one request at a time) and
prints client-side latency percentiles over all requests and per query. With --listing, also
times the document listing sorted by date and by title.

usage: http_search_latency.py URL LIBRARY REPS [--top K] [--listing]
"""
import http.client, json, statistics, sys, time, urllib.parse

QUERIES = [
    "machine translation",
    '"word sense disambiguation"',
    "title:parsing year:1990..1995",
    "sentiment -twitter year:2015..2018",
    'neural "question answering" title:dataset',
]


def get(conn, path):
    t = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    elapsed = (time.perf_counter() - t) * 1000
    if response.status != 200:
        raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
    return json.loads(body), elapsed


def percentiles(xs):
    q = lambda p: sorted(xs)[min(len(xs) - 1, round((len(xs) - 1) * p))]
    return {"n": len(xs), "p50": round(q(0.5), 2), "p99": round(q(0.99), 2), "mean": round(statistics.mean(xs), 2)}


def main():
    url, library, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 3
    parts = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    search = lambda q: f"/api/v1/libraries/{library}/search?" + urllib.parse.urlencode({"q": q, "limit": 10})
    for q in QUERIES:
        answer, ms = get(conn, search(q))
        print(f"{q}  →  {answer['total']} documents ({ms:.1f} ms, first run)")
        for hit in answer["hits"][:top]:
            print(f"    {hit['score']:.2f}  {hit['doc_id']}  {hit['title']}  ({hit['year']})")
    every, by_query = [], {q: [] for q in QUERIES}
    for _ in range(reps):
        for q in QUERIES:
            _, ms = get(conn, search(q))
            every.append(ms)
            by_query[q].append(ms)
    print(json.dumps({"all_ms": percentiles(every), "per_query_ms": {q: percentiles(v) for q, v in by_query.items()}}, indent=1))
    if "--listing" in sys.argv:
        listing = lambda sort, offset: f"/api/v1/libraries/{library}/documents?sort={sort}&limit=20&offset={offset}"
        _, first_title = get(conn, listing("title", 0))
        times = {"added_at": [], "title": []}
        for i in range(reps):
            for sort in times:
                _, ms = get(conn, listing(sort, (i * 20) % 50_000))
                times[sort].append(ms)
        print(json.dumps({"listing_title_first_ms": round(first_title, 1), "listing_ms": {k: percentiles(v) for k, v in times.items()}}, indent=1))


if __name__ == "__main__":
    main()
