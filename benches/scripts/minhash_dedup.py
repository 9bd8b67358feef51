#!/usr/bin/env python3
"""The planted duplicate groups of `dupfinder gen-tests --planted-groups` through datasketch's
MinHash LSH, for comparison with `dupfinder dedup --truth`: every document of library.jsonl is
hashed (word 5-shingles, lowercased; 128 permutations), inserted into an LSH index at a Jaccard
threshold, and queried; the pairs found are joined into clusters (connected components) and
scored like dupfinder's clusters: pairwise precision, recall and F1 over planted documents only.

    pip install datasketch
    python3 benches/scripts/minhash_dedup.py OUT/library.jsonl OUT/truth.jsonl [--threshold 0.5]

Prints one JSON object: the scores, the seconds spent hashing, indexing and querying, and the
peak resident memory of the process.
"""

import argparse
import json
import re
import resource
import time
from itertools import combinations

from datasketch import MinHash, MinHashLSH

WORD = re.compile(r"\w+", re.UNICODE)


def shingles(text, k):
    words = WORD.findall(text.lower())
    if len(words) < k:
        return {" ".join(words).encode()} if words else set()
    return {" ".join(words[i : i + k]).encode() for i in range(len(words) - k + 1)}


def score(clusters, truth):
    group_of, partials, true_pairs = {}, set(), 0
    for entry in truth:
        if "group" in entry:
            members = entry["members"]
            true_pairs += len(members) * (len(members) - 1) // 2
            for m in members:
                group_of[m] = entry["group"]
        else:
            partials.add(entry["partial"])
    predicted = correct = clustered = pure = partial_clustered = 0
    for cluster in clusters:
        members = [d for d in cluster if d in group_of or d in partials]
        if len(members) < 2:
            continue
        predicted += len(members) * (len(members) - 1) // 2
        per_group = {}
        for m in members:
            if m in group_of:
                per_group[group_of[m]] = per_group.get(group_of[m], 0) + 1
            else:
                partial_clustered += 1
        correct += sum(n * (n - 1) // 2 for n in per_group.values())
        clustered += len(members)
        pure += max(per_group.values(), default=0)
    precision = correct / predicted if predicted else 0.0
    recall = correct / true_pairs if true_pairs else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "planted_documents": len(group_of) + len(partials),
        "true_pairs": true_pairs,
        "predicted_pairs": predicted,
        "correct_pairs": correct,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "purity": pure / clustered if clustered else 0.0,
        "partial_copies_clustered": partial_clustered,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("truth")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--shingle", type=int, default=5)
    parser.add_argument("--perm", type=int, default=128)
    args = parser.parse_args()

    # A later line with the same id replaces an earlier one, as dupfinder's import does.
    texts = {}
    with open(args.library, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                obj = json.loads(line)
                texts[str(obj.get("id"))] = obj.get("text") or ""
    docs = list(texts.items())
    with open(args.truth, encoding="utf-8") as f:
        truth = [json.loads(line) for line in f if line.strip()]

    started = time.perf_counter()
    hashes = []
    for doc_id, text in docs:
        m = MinHash(num_perm=args.perm, seed=1)
        m.update_batch(list(shingles(text, args.shingle)))
        hashes.append((doc_id, m))
    hashed = time.perf_counter()
    lsh = MinHashLSH(threshold=args.threshold, num_perm=args.perm)
    for doc_id, m in hashes:
        lsh.insert(doc_id, m)
    indexed = time.perf_counter()
    parent = {}

    def root(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for doc_id, m in hashes:
        for other in lsh.query(m):
            if other != doc_id:
                a, b = root(doc_id), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    queried = time.perf_counter()
    components = {}
    for doc_id in list(parent):
        components.setdefault(root(doc_id), []).append(doc_id)
    clusters = [c for c in components.values() if len(c) > 1]
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "documents": len(docs),
                "clusters": len(clusters),
                "threshold": args.threshold,
                "shingle_words": args.shingle,
                "permutations": args.perm,
                "seconds": {
                    "hash": round(hashed - started, 2),
                    "index": round(indexed - hashed, 2),
                    "query": round(queried - indexed, 2),
                    "total": round(queried - started, 2),
                },
                "peak_rss_mib": round(peak_kib / 1024, 1),
                "scores": score(clusters, truth),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
