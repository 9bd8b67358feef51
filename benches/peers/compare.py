#!/usr/bin/env python3
"""Side by side: dupfinder and datasketch's MinHash LSH on the same generated queries, one run.

usage:
  compare.py DUPFINDER_BIN CORPUS.jsonl.gz OUT_DIR [--library acl] [--holdout 0.05]
             [--per-kind 50] [--seed 1] [--threshold 0.5,0.3,0.2,0.1] [--python PYTHON]
             [--port PORT]

Steps, one process at a time (the machine is small and shared):
  1. `dupfinder gen-tests CORPUS --out OUT/tests ...`   -> library.jsonl, queries.jsonl (truth)
  2. `dupfinder --data-dir OUT/data import --library L OUT/tests/library.jsonl`, timed: its wall
     time is dupfinder's build time (the import ends with the statistics snapshot and signing).
  3. `dupfinder --data-dir OUT/data eval --library L OUT/tests/queries.jsonl --json`
     -> OUT/dupfinder_eval.json: dupfinder's quality figures, the reference.
  4. `dupfinder serve` on 127.0.0.1; every query is posted once to /api/v1/check (keep-alive,
     no passages, sequential) for latency: server-side `took_ms` and client wall time. The
     answers are scored again with the datasketch script's scorer as a cross-check of that
     scorer against eval. Each distinct source is checked too: its `duplicate` matches are its
     twins, exactly as eval computes them -> OUT/twins.json. The server is then stopped.
  5. `PYTHON datasketch_lsh.py OUT/tests/library.jsonl OUT/tests/queries.jsonl --twins
     OUT/twins.json --threshold ... --verify` -> OUT/datasketch.json (needs `pip install
     datasketch` for PYTHON).
  6. Prints Markdown tables (also written to OUT/summary.md) and OUT/summary.json.

Latency: datasketch's figure is measured in-process around shingling + MinHash + LSH query,
one query after another. dupfinder's closest equivalent is eval's `took_ms`, measured in-process
around the check function (analysis, lookups, verification) one query after another. The same
`took_ms` over HTTP is measured inside the server around the same function (run on the server's
blocking pool); the client time adds the round trip and JSON on both ends. All are printed.
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from datasketch_lsh import group_of, latency, read_jsonl, score  # noqa: E402


def run_timed(cmd, stdout_path=None, ok=(0,)):
    """Runs cmd; returns (wall seconds, peak RSS in MB of that process)."""
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = open(stdout_path, "w") if stdout_path else None
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out or subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if out:
        out.close()
    if p.returncode not in ok:
        sys.exit(f"{cmd[0]} exited with {p.returncode}")
    return wall, usage.ru_maxrss / 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def check(self, text, library):
        body = json.dumps({"text": text, "libraries": [library]})
        t = time.perf_counter()
        self.conn.request("POST", "/api/v1/check", body, {"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        answer = json.loads(resp.read())
        return resp.status, answer, (time.perf_counter() - t) * 1000


def dupfinder_http(binary, data_dir, library, queries, library_docs, port):
    """Latency and answers of every query over HTTP, and the twins of every source."""
    cmd = [binary, "--data-dir", data_dir, "serve", "--listen", f"127.0.0.1:{port}"]
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("dupfinder serve did not come up")
        client = Client(port)
        client.conn.request("GET", f"/api/v1/libraries/{library}")
        live_docs = json.loads(client.conn.getresponse().read())["documents"]
        # Warm-up outside the measurement: the first checks open the index files.
        for q in queries[:20]:
            client.check(q["text"], library)
        claimed, detected, partials, took, wall = {}, {}, {}, [], []
        for q in queries:
            status, answer, ms = client.check(q["text"], library)
            if status != 200:
                continue                                  # rejected, as eval skips it
            took.append(answer["took_ms"])
            wall.append(ms)
            partial = q.get("source") is not None and not q.get("expect_duplicate")
            claimed[q["id"]] = [m["doc_id"] for m in answer["matches"]
                                if partial or m["verdict"] == "duplicate"]
            detected[q["id"]] = bool(answer["matches"])
            partials[q["id"]] = [m["doc_id"] for m in answer["matches"]
                                 if m["verdict"] == "partial"]
        twins = {}
        for source in sorted({q["source"] for q in queries if q.get("source") is not None}):
            text = library_docs.get(source)
            if text is None:
                continue
            status, answer, _ = client.check(text, library)
            if status == 200:
                twins[source] = sorted(m["doc_id"] for m in answer["matches"]
                                       if m["verdict"] == "duplicate" and m["doc_id"] != source)
        return claimed, detected, partials, took, wall, twins, live_docs
    finally:
        server.terminate()
        server.wait()


def eval_groups(report):
    """eval's combined-verdict counts summed per group and per kind (levels pooled)."""
    groups, kinds = {}, {}
    for row in report["rows"]:
        c = row["methods"]["combined"]
        q = {"source": None if row["kind"].startswith("negative") else "x",
             "expect_duplicate": row["kind"] != "partial_copy"}
        for acc in (groups.setdefault(group_of(q), {}), kinds.setdefault(row["kind"], {})):
            for k in ("positives", "found", "wrong"):
                acc[k] = acc.get(k, 0) + c[k]
            acc["queries"] = acc.get("queries", 0) + row["queries"]
    return groups, kinds


def pooled_kinds(rows):
    kinds = {}
    for row in rows:
        acc = kinds.setdefault(row["kind"], {})
        for k in ("positives", "found", "wrong", "queries"):
            acc[k] = acc.get(k, 0) + row[k]
    return kinds


def rp(s):
    r = s["found"] / s["positives"] if s["positives"] else 0.0
    p = 1.0 if s["found"] + s["wrong"] == 0 else s["found"] / (s["found"] + s["wrong"])
    f = 2 * r * p / (r + p) if r + p else 0.0
    return r, p, f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--library", default="acl")
    ap.add_argument("--holdout", default="0.05")
    ap.add_argument("--per-kind", default="50")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--threshold", default="0.5,0.3,0.2,0.1",
                    help="MinHashLSH thresholds; each is reported as is and with --verify")
    ap.add_argument("--python", default=sys.executable, help="a Python with datasketch installed")
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()

    out = os.path.abspath(a.out)
    tests, data = os.path.join(out, "tests"), os.path.join(out, "data")
    if os.path.exists(data):
        sys.exit(f"{data} exists: use a fresh OUT_DIR so the import starts from nothing")
    os.makedirs(out, exist_ok=True)
    B = a.binary
    run_timed([B, "gen-tests", a.corpus, "--out", tests, "--holdout", a.holdout,
               "--per-kind", a.per_kind, "--seed", a.seed], os.path.join(out, "gen-tests.json"))
    lib_path, q_path = os.path.join(tests, "library.jsonl"), os.path.join(tests, "queries.jsonl")

    import_wall, import_rss = run_timed([B, "--data-dir", data, "import", "--library", a.library,
                                         lib_path], os.path.join(out, "import.json"), ok=(0, 3))
    with open(os.path.join(out, "import.json")) as f:
        imported = json.load(f)
    eval_path = os.path.join(out, "dupfinder_eval.json")
    run_timed([B, "--data-dir", data, "eval", "--library", a.library, q_path, "--json"], eval_path)
    with open(eval_path) as f:
        ev = json.load(f)

    queries = read_jsonl(q_path)
    library_docs = {d["id"]: d["text"] for d in read_jsonl(lib_path)}
    claimed, detected, partials, took, wall, twins, live_docs = dupfinder_http(
        B, data, a.library, queries, library_docs, a.port or free_port())
    del library_docs
    twins_path = os.path.join(out, "twins.json")
    with open(twins_path, "w") as f:
        json.dump(twins, f)
    http_score = score(queries, claimed, {s: set(v) for s, v in twins.items()})
    # eval's detection counts any match, not only claimed ones.
    det_http = sum(detected[q["id"]] and q.get("source") is not None
                   for q in queries if q["id"] in detected)
    # Partial-verdict matches to other documents on duplicate-kind queries: eval counts them
    # neither right nor wrong; datasketch has no such verdict, every answer of it counts.
    other_partial, other_partial_queries = 0, 0
    for q in queries:
        if q.get("source") is None or not q.get("expect_duplicate") or q["id"] not in detected:
            continue
        ok = {q["source"]} | set(twins.get(q["source"], []))
        n = sum(1 for doc in partials[q["id"]] if doc not in ok)
        other_partial += n
        other_partial_queries += n > 0
    with open(os.path.join(out, "dupfinder_http.json"), "w") as f:
        json.dump({"took_ms": latency(took), "client_ms": latency(wall), "checks": len(took),
                   "score": http_score, "detected_positives": det_http}, f, indent=1)

    ds_path = os.path.join(out, "datasketch.json")
    ds_wall, ds_rss = run_timed([a.python, os.path.join(HERE, "datasketch_lsh.py"), lib_path,
                                 q_path, "--twins", twins_path, "--threshold", a.threshold,
                                 "--verify", "--json", ds_path,
                                 "--answers", os.path.join(out, "datasketch_answers.json")])
    with open(ds_path) as f:
        ds = json.load(f)

    # ---------------------------------------------------------------- tables
    groups, kinds = eval_groups(ev)
    o, d = ev["overall"]["methods"]["combined"], ev["detection"]
    lines = []
    w = lines.append
    w(f"Corpus `{os.path.basename(a.corpus)}`: library of {live_docs:,} documents for dupfinder "
      f"({len(imported['rejected'])} lines rejected as too short), {len(queries)} queries "
      f"({ev['rejected']} rejected by dupfinder's eval) "
      f"(gen-tests --holdout {a.holdout} --per-kind {a.per_kind} --seed {a.seed}); "
      f"datasketch {ds['datasketch_version']}, num_perm {ds['num_perm']}, word 3-shingles; "
      f"{sum(map(len, twins.values()))} twin documents for {sum(1 for v in twins.values() if v)} "
      f"sources.")
    w("")
    w("| system | build | docs | RSS | latency in-process p50 / p99 | over HTTP: server "
      "`took_ms` p50 / p99, client p50 / p99 | overall R / P / F1 | duplicate kinds R / P | "
      "partial copies R / P | negatives answered (wrong docs) | detection P / R / F1 |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    gd, gp, gn = groups["duplicate"], groups["partial"], groups["negative"]
    el, ht, hc = ev["latency_ms"], latency(took), latency(wall)
    w(f"| dupfinder | {import_wall:.1f} s | {live_docs:,} | {import_rss:.0f} MB | "
      f"{el['p50']:.2f} / {el['p99']:.2f} ms | {ht['p50']:.2f} / {ht['p99']:.2f} ms, "
      f"{hc['p50']:.2f} / {hc['p99']:.2f} ms | "
      f"{o['recall']:.3f} / {o['precision']:.3f} / {o['f1']:.3f} | "
      f"{rp(gd)[0]:.3f} / {rp(gd)[1]:.3f} | {rp(gp)[0]:.3f} / {rp(gp)[1]:.3f} | "
      f"{d['false_positives']} of {gn['queries']} ({gn['wrong']}) | "
      f"{d['precision']:.3f} / {d['recall']:.3f} / {d['f1']:.3f} |")
    for r in ds["results"]:
        g, ro, rd, rl = r["groups"], r["overall"], r["detection"], r["latency_ms"]
        verified = " + verify" if r["verified"] else ""
        w(f"| datasketch, threshold {r['threshold']}{verified} | {r['build_seconds']:.1f} s | "
          f"{r['documents']:,} | {r['rss_with_index_mb']:.0f} MB | "
          f"{rl['p50']:.2f} / {rl['p99']:.2f} ms | — | "
          f"{ro['recall']:.3f} / {ro['precision']:.3f} / {ro['f1']:.3f} | "
          f"{g['duplicate']['recall']:.3f} / {g['duplicate']['precision']:.3f} | "
          f"{g['partial']['recall']:.3f} / {g['partial']['precision']:.3f} | "
          f"{rd['false_positives']} of {g['negative']['queries']} ({g['negative']['wrong']}) | "
          f"{rd['precision']:.3f} / {rd['recall']:.3f} / {rd['f1']:.3f} |")
    w("")
    w(f"- dupfinder build = wall time of `import` ({imported['import_seconds']:.1f} s import + "
      f"{imported['signing_seconds']:.1f} s statistics and signing, as the import reports them; "
      f"the index is on disk). In-process latency = eval's `took_ms` over the "
      f"{len(queries) - ev['partial_copies']['queries']} queries other than partial copies "
      f"(eval checks those with passages: p50 {ev['partial_copies']['latency_ms']['p50']:.2f} ms); "
      f"HTTP = every query once, without passages, {len(took)} checks.")
    for r in ds["results"]:
        if r["verified"]:
            continue
        bd = r["build_breakdown_seconds"]
        w(f"- datasketch threshold {r['threshold']}: LSH b={r['bands']} bands of r="
          f"{r['rows_per_band']} rows; build = read + shingle {bd['read_and_shingle']:.1f} s + "
          f"MinHash {bd['minhash']:.1f} s + insert {bd['insert']:.1f} s (in memory); "
          f"{r['returned_per_query_mean']} documents returned per query.")
    w(f"- datasketch RSS: the process's resident size right after building that threshold's "
      f"index (it holds the library's MinHashes, the queries' MinHashes and that index; the "
      f"indexes are built one after the other in one process, so memory the allocator kept from "
      f"an earlier index may be counted in a later one; peak {ds['max_rss_mb']:.0f} MB); "
      f"dupfinder: peak RSS of the import process. The datasketch run took {ds_wall:.0f} s in "
      f"all.")
    strict = gd["found"] / (gd["found"] + gd["wrong"] + other_partial)
    w(f"- dupfinder also returned {other_partial} `partial`-verdict matches to documents other "
      f"than the source (or a twin) on {other_partial_queries} duplicate-kind queries; eval "
      f"counts only `duplicate` verdicts for those queries. Counted as wrong, the way every "
      f"datasketch answer counts, dupfinder's duplicate-kind precision would be {strict:.3f}.")
    ho = http_score["overall"]
    same = (ho["found"], ho["wrong"], ho["positives"]) == (o["found"], o["wrong"], o["positives"])
    same = same and det_http == d["true_positives"]
    w(f"- Scorer cross-check: dupfinder's HTTP answers scored by datasketch_lsh.score give found "
      f"{ho['found']}, wrong {ho['wrong']} of {ho['positives']} positives, detection TP "
      f"{det_http}; eval says found {o['found']}, wrong {o['wrong']}, TP {d['true_positives']} "
      f"({'identical' if same else 'DIFFERENT'}).")
    w("")
    names = ["dupfinder"] + [f"ds t={r['threshold']}" + ("+v" if r["verified"] else "")
                             for r in ds["results"]]
    w("| modification (levels pooled) | n | " + " | ".join(f"{n} R / P" for n in names) + " |")
    w("|---|---|" + "---|" * len(names))
    ds_kinds = [pooled_kinds(r["rows"]) for r in ds["results"]]
    for kind in sorted(kinds):
        cells = []
        for s in [kinds[kind]] + [k[kind] for k in ds_kinds]:
            r, p, _ = rp(s)
            cells.append(f"{r:.3f} / {p:.3f}" if s["positives"] else f"{s['wrong']} wrong docs")
        w(f"| {kind} | {kinds[kind]['queries']} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"dupfinder": {"build_wall_seconds": round(import_wall, 3),
                                 "documents": live_docs,
                                 "import": {k: imported[k] for k in
                                            ("accepted", "import_seconds", "signing_seconds")},
                                 "import_peak_rss_mb": round(import_rss, 1),
                                 "http_took_ms": latency(took), "http_client_ms": latency(wall),
                                 "eval": {"overall": o, "detection": d, "latency_ms": el,
                                          "partial_copies": ev["partial_copies"]},
                                 "groups": groups,
                                 "other_partial_matches_on_duplicate_queries": other_partial},
                   "datasketch": ds, "datasketch_process_wall_seconds": round(ds_wall, 3)},
                  f, indent=1)


if __name__ == "__main__":
    main()
