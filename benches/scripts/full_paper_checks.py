"""Full-paper checks over HTTP: the first 20,000 characters of each query text of 20,000 or
more, checked with passages (and so structure) against one library; prints the server-side
`took_ms` percentiles. Usage: full_paper_checks.py URL LIBRARY QUERIES.jsonl [N]"""
import json, sys, urllib.request, statistics
url, library, path = sys.argv[1:4]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 200
texts = []
for line in open(path):
    d = json.loads(line)
    t = d["text"]
    if len(t) >= 20000:
        texts.append(t[:20000])
    if len(texts) >= n:
        break
took = []
for t in texts:
    body = json.dumps({"text": t, "libraries": [library], "passages": True, "store": False}).encode()
    req = urllib.request.Request(url + "/api/v1/check", body, {"content-type": "application/json"})
    a = json.load(urllib.request.urlopen(req))
    took.append(a["took_ms"])
took.sort()
q = lambda p: took[min(len(took) - 1, int(p * len(took)))]
print(f"{len(took)} full papers of 20,000 characters: took_ms p50 {statistics.median(took):.2f}, p90 {q(0.9):.2f}, p99 {q(0.99):.2f}")
