#!/usr/bin/env python3
"""Splits a JSON Lines corpus for the mixed load test.

Writes into OUT:
  library.jsonl  every document but the last HOLDOUT*2 (imported before the test)
  checks.txt     one check body per line: exact copies of library documents and held-out
                 (novel) abstracts, alternating
  queries.txt    one search path per line (two or three title words of library documents)
  ingests.txt    one document text per line (JSON string), held out of the library; the Lua
                 script gives each ingest a fresh id

usage: prepare.py CORPUS.jsonl.gz OUT [HOLDOUT]
"""
import gzip
import json
import random
import sys
import urllib.parse

corpus, out = sys.argv[1], sys.argv[2]
holdout = int(sys.argv[3]) if len(sys.argv) > 3 else 500
rng = random.Random(7)
with gzip.open(corpus, "rt", encoding="utf-8") as f:
    docs = [json.loads(line) for line in f if line.strip()]
docs = [d for d in docs if len((d.get("text") or "").split()) >= 50]
library, novel, fresh = docs[: -2 * holdout], docs[-2 * holdout : -holdout], docs[-holdout:]
with open(f"{out}/library.jsonl", "w", encoding="utf-8") as f:
    for d in library:
        f.write(json.dumps(d, ensure_ascii=False) + "\n")
with open(f"{out}/checks.txt", "w", encoding="utf-8") as f:
    copies = rng.sample(library, len(novel))
    for copy, new in zip(copies, novel):
        for d in (copy, new):
            f.write(json.dumps({"text": d["text"], "libraries": ["acl"]}, ensure_ascii=False) + "\n")
with open(f"{out}/queries.txt", "w", encoding="utf-8") as f:
    for d in rng.sample(library, 2000):
        words = [w.strip(".,:;()\"'?!") for w in d["title"].split()]
        words = [w for w in words if len(w) > 3 and w.isalpha()]
        if len(words) < 2:
            continue
        q = " ".join(rng.sample(words, min(len(words), rng.choice([2, 3]))))
        f.write("/api/v1/libraries/acl/search?q=" + urllib.parse.quote(q) + "\n")
with open(f"{out}/ingests.txt", "w", encoding="utf-8") as f:
    for d in fresh:
        f.write(json.dumps(d["text"], ensure_ascii=False) + "\n")
print(f"library {len(library)}, checks {2 * len(novel)}, ingests {len(fresh)}")
