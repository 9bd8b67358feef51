#!/usr/bin/env python3
"""Peer baseline: datasketch's MinHash LSH on the queries that `dupfinder gen-tests` writes,
scored with the definitions of `dupfinder eval` (crates/eval/src/quality.rs).

usage:
  datasketch_lsh.py LIBRARY.jsonl QUERIES.jsonl [--threshold 0.5[,0.3...]] [--num-perm 128]
                    [--verify] [--twins TWINS.json] [--json OUT.json] [--answers OUT.json]
                    [--rows]

Index (a plain, typical datasketch setup):
  document -> lowercase -> Unicode word tokens (Python's `\\w+`) -> set of word 3-shingles
  -> MinHash (num_perm, default scheme and hash) -> MinHashLSH(threshold, num_perm).
  Build = reading LIBRARY.jsonl + shingling + MinHash (MinHash.generator, which shares the
  permutations) + insertion (insertion_session). The MinHashes are computed once and reused for
  every threshold; each threshold's build time is that shared part plus its own insertion.
  Query latency (in-process, per query) = shingling + MinHash of the query + LSH query.
  LSH answers are candidates: documents whose MinHash agrees with the query's in all rows of
  some band, and a few of them are far below the threshold. With --verify each threshold is
  reported a second time with candidates kept only when the MinHash-estimated Jaccard
  similarity (MinHash.jaccard) reaches the threshold, a common second step; its latency
  includes that step.

Scoring, as `dupfinder eval` scores its combined verdict:
  - every document LSH returns is the system's claim (LSH has no verdict levels);
  - recall = positives (queries with a `source`) whose source was returned, over positives —
    duplicate kinds and partial copies alike;
  - a returned document is "wrong" unless it is the source or a twin of the source (a document
    the source itself duplicates); for negatives (`source: null`) every returned document is
    wrong; precision = found / (found + wrong), 1.0 when nothing at all was returned;
  - detection (query level): a query with a source should get some answer, one without none.
  Twins: eval takes them from dupfinder's own check of the source text (its `duplicate`
  matches). Pass those with --twins (a JSON object {source_id: [doc_id, ...]}, which
  compare.py writes) so both systems are scored against the same truth. Documents whose
  normalized text is identical to the source's are always twins as well (without --twins they
  are the only ones).

Needs `pip install datasketch`.
"""
import argparse
import json
import re
import resource
import sys
import time
from collections import defaultdict

WORD = re.compile(r"\w+")
SHINGLE_WORDS = 3


def words(text):
    """Lowercase Unicode word tokens."""
    return WORD.findall(text.lower())


def shingles(text):
    """The set of word 3-shingles (a shorter text is one shingle of all its words)."""
    w = words(text)
    if len(w) < SHINGLE_WORDS:
        return {" ".join(w)} if w else set()
    return {" ".join(w[i:i + SHINGLE_WORDS]) for i in range(len(w) - SHINGLE_WORDS + 1)}


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def rss_mb():
    """Current resident set size of this process (Linux), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def percentile(samples, q):
    """The sample at rank round((n-1)·q) of the sorted samples, as dupfinder's Latency does."""
    if not samples:
        return 0.0
    s = sorted(samples)
    return s[round((len(s) - 1) * q)]


def latency(samples):
    return {k: round(percentile(samples, q), 4) for k, q in
            (("p50", .5), ("p90", .9), ("p99", .99), ("max", 1.0))}


# ---------------------------------------------------------------- scoring (as quality.rs)

def group_of(query):
    """duplicate (a modified copy), partial (a passage copied into another text) or negative."""
    if query.get("source") is None:
        return "negative"
    return "duplicate" if query.get("expect_duplicate") else "partial"


def _finish(stats):
    """Recall, precision and F1 from found / wrong / positives, rounded like quality.rs."""
    pos, found, wrong = stats["positives"], stats["found"], stats["wrong"]
    recall = found / pos if pos else 0.0
    precision = 1.0 if found + wrong == 0 else found / (found + wrong)
    f1 = 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)
    stats.update(recall=round(recall, 3), precision=round(precision, 3), f1=round(f1, 3))
    return stats


def score(queries, answers, twins):
    """Scores `answers` (query id -> list of returned doc ids; a query missing from it was
    rejected and is skipped) against the truth in `queries`. `twins`: source id -> set of ids
    that count as correct besides the source. Returns counts and R / P / F1 per (kind, level),
    per group (duplicate, partial, negative) and overall, and query-level detection."""
    rows, groups = {}, {}
    blank = lambda: {"queries": 0, "positives": 0, "found": 0, "wrong": 0, "answered": 0}
    overall = blank()
    det = {"true_positives": 0, "false_positives": 0, "false_negatives": 0, "true_negatives": 0}
    rejected = 0
    for q in queries:
        if q["id"] not in answers:
            rejected += 1
            continue
        returned = set(answers[q["id"]])
        source = q.get("source")
        correct = ({source} | twins.get(source, set())) if source is not None else set()
        positive = source is not None
        one = {"queries": 1, "positives": int(positive),
               "found": int(positive and source in returned),
               "wrong": sum(1 for d in returned if d not in correct),
               "answered": int(bool(returned))}
        key = (q["kind"], round(q.get("level", 0.0) * 1000))
        for acc in (rows.setdefault(key, blank()), groups.setdefault(group_of(q), blank()), overall):
            for k, v in one.items():
                acc[k] += v
        predicted = bool(returned)
        det["true_positives"] += predicted and positive
        det["false_positives"] += predicted and not positive
        det["false_negatives"] += (not predicted) and positive
        det["true_negatives"] += (not predicted) and not positive
    tp, fp, fn = det["true_positives"], det["false_positives"], det["false_negatives"]
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    det.update(precision=round(p, 3), recall=round(r, 3),
               f1=round(2 * p * r / (p + r), 3) if p + r else 0.0)
    return {
        "rejected": rejected,
        "rows": [dict(kind=k, level=lv / 1000, **_finish(s)) for (k, lv), s in sorted(rows.items())],
        "groups": {g: _finish(s) for g, s in sorted(groups.items())},
        "overall": _finish(overall),
        "detection": det,
    }


# ---------------------------------------------------------------- the datasketch side

def exact_twins(library_texts, sources):
    """Source id -> ids of other library documents with the same normalized word sequence."""
    by_text = defaultdict(list)
    for doc_id, text in library_texts.items():
        by_text[tuple(words(text))].append(doc_id)
    out = {}
    for s in sources:
        if s in library_texts:
            same = by_text[tuple(words(library_texts[s]))]
            if len(same) > 1:
                out[s] = set(same) - {s}
    return out


def run(library_path, queries_path, thresholds, num_perm, twins_path=None, verify=False):
    from datasketch import MinHash, MinHashLSH
    import datasketch

    # Build, shared part: read, shingle, MinHash.
    t0 = time.perf_counter()
    library = {}
    for doc in read_jsonl(library_path):
        library[doc["id"]] = doc["text"]           # the last version of an id wins, as in import
    ids, sets = [], []
    for doc_id, text in library.items():
        sh = shingles(text)
        if sh:
            ids.append(doc_id)
            sets.append([s.encode("utf-8") for s in sh])
    t_read = time.perf_counter()
    hashes = list(MinHash.generator(sets, num_perm=num_perm))
    del sets
    t_minhash = time.perf_counter()
    shared_build = t_minhash - t0
    proto = hashes[0]

    queries = read_jsonl(queries_path)
    sources = {q["source"] for q in queries if q.get("source") is not None}
    twins = {s: set(v) for s, v in exact_twins(library, sources).items()}
    exact_twin_count = sum(len(v) for v in twins.values())
    if twins_path:
        with open(twins_path, encoding="utf-8") as f:
            for s, v in json.load(f).items():
                twins.setdefault(s, set()).update(d for d in v if d != s)

    # Query MinHashes, timed per query (shingling + MinHash); reused for every threshold.
    q_hash, q_time = {}, {}
    for q in queries:
        t = time.perf_counter()
        sh = shingles(q["text"])
        m = None
        if sh:
            m = MinHash(num_perm=num_perm, permutations=proto.permutations, scheme=proto.scheme)
            m.update_batch([s.encode("utf-8") for s in sh])
        q_time[q["id"]] = time.perf_counter() - t
        q_hash[q["id"]] = m

    by_id = dict(zip(ids, hashes)) if verify else {}
    results = []
    for threshold in thresholds:
        t = time.perf_counter()
        lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
        with lsh.insertion_session() as session:
            for doc_id, m in zip(ids, hashes):
                session.insert(doc_id, m)
        insert = time.perf_counter() - t
        rss = rss_mb()
        for verified in ([False, True] if verify else [False]):
            answers, lat = {}, []
            for q in queries:
                m = q_hash[q["id"]]
                t = time.perf_counter()
                found = lsh.query(m) if m is not None else []
                if verified:
                    found = [d for d in found if m.jaccard(by_id[d]) >= threshold]
                lat.append((q_time[q["id"]] + time.perf_counter() - t) * 1000)
                answers[q["id"]] = found
            report = score(queries, answers, twins)
            results.append({
                "system": f"datasketch MinHashLSH t={threshold}" + (" + verify" if verified else ""),
                "threshold": threshold,
                "verified": verified,
                "bands": lsh.b, "rows_per_band": lsh.r,
                "build_seconds": round(shared_build + insert, 3),
                "build_breakdown_seconds": {"read_and_shingle": round(t_read - t0, 3),
                                            "minhash": round(t_minhash - t_read, 3),
                                            "insert": round(insert, 3)},
                "documents": len(ids),
                "rss_with_index_mb": round(rss, 1),
                "latency_ms": latency(lat),
                "returned_per_query_mean": round(sum(map(len, answers.values())) / len(answers), 3),
                **report,
                "answers": answers,
            })
        del lsh
    return {
        "datasketch_version": datasketch.__version__,
        "num_perm": num_perm,
        "shingle_words": SHINGLE_WORDS,
        "library_documents": len(library),
        "queries": len(queries),
        "twin_sources": sum(1 for v in twins.values() if v),
        "exact_content_twins": exact_twin_count,
        "twins_file": twins_path,
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "results": results,
    }


def print_report(out, rows=False, file=sys.stdout):
    print(f"datasketch {out['datasketch_version']}, num_perm {out['num_perm']}, word "
          f"{out['shingle_words']}-shingles; {out['library_documents']} library documents, "
          f"{out['queries']} queries; peak RSS {out['max_rss_mb']} MB", file=file)
    for r in out["results"]:
        g, o, d = r["groups"], r["overall"], r["detection"]
        print(f"\n{r['system']} (b={r['bands']}, r={r['rows_per_band']}): build "
              f"{r['build_seconds']} s {r['build_breakdown_seconds']}, {r['documents']} docs, "
              f"RSS {r['rss_with_index_mb']} MB, "
              f"latency p50 {r['latency_ms']['p50']:.2f} ms p99 {r['latency_ms']['p99']:.2f} ms, "
              f"{r['returned_per_query_mean']} docs returned per query", file=file)
        if rows:
            print(f"{'modification':<22} {'level':>5} {'n':>4} | {'R / P / F1':>19}", file=file)
            for row in r["rows"]:
                print(f"{row['kind']:<22} {row['level']:>5.2f} {row['queries']:>4} | "
                      f"{row['recall']:.3f} / {row['precision']:.3f} / {row['f1']:.3f}", file=file)
        print(f"overall: R {o['recall']:.3f} P {o['precision']:.3f} F1 {o['f1']:.3f} "
              f"(found {o['found']} of {o['positives']}, wrong {o['wrong']})", file=file)
        for name in ("duplicate", "partial", "negative"):
            if name in g:
                s = g[name]
                print(f"  {name:<9} n {s['queries']:>4}: R {s['recall']:.3f} P {s['precision']:.3f} "
                      f"F1 {s['f1']:.3f}, wrong docs {s['wrong']}, queries answered {s['answered']}",
                      file=file)
        print(f"query-level detection: P {d['precision']:.3f} R {d['recall']:.3f} F1 {d['f1']:.3f} "
              f"(TP {d['true_positives']} FP {d['false_positives']} FN {d['false_negatives']} "
              f"TN {d['true_negatives']})", file=file)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("library")
    ap.add_argument("queries")
    ap.add_argument("--threshold", default="0.5",
                    help="Jaccard threshold(s) of MinHashLSH, comma-separated (default 0.5)")
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--twins", help="JSON {source_id: [twin ids]} (compare.py writes it)")
    ap.add_argument("--json", help="also write the report as JSON to this file")
    ap.add_argument("--verify", action="store_true",
                    help="also report each threshold with LSH candidates kept only when their "
                         "MinHash-estimated Jaccard similarity reaches the threshold")
    ap.add_argument("--answers", help="write the ids returned per query and threshold here")
    ap.add_argument("--rows", action="store_true",
                    help="print per modification and level rows too (always in --json)")
    args = ap.parse_args()
    thresholds = [float(t) for t in args.threshold.split(",")]
    out = run(args.library, args.queries, thresholds, args.num_perm, args.twins, args.verify)
    print_report(out, args.rows)
    if args.answers:
        with open(args.answers, "w", encoding="utf-8") as f:
            json.dump({r["system"]: r["answers"] for r in out["results"]}, f)
    for r in out["results"]:
        del r["answers"]
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
