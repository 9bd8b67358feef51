"""Twelve heavy checks abandoned by their clients: how long the server keeps computing them.

Starts `BINARY serve` on DATA_DIR (a library `acl` imported beforehand), sends twelve checks at
once, each a ~4.5 MB text made of the library's own abstracts (hundreds of candidates, each
verified with passages), and closes every connection after --give-up seconds. Then samples the
server's CPU time (/proc/PID/stat) every 0.1 s until it stays idle (under 5 % of a core for a
whole second) and prints how long that took after the last client left and how much CPU the
server burned meanwhile.

    python3 benches/scripts/abandoned_checks.py BINARY DATA_DIR ABSTRACTS.jsonl [--port P]
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def heavy_text(path, size=4_500_000):
    texts = [json.loads(line).get("text") or "" for line in open(path)]
    joined = "\n\n".join(t for t in texts if len(t) > 300)
    return (joined * (size // len(joined) + 1))[:size]


def abandon(port, body, give_up):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=give_up)
    try:
        connection.request("POST", "/api/v1/check", body, {"content-type": "application/json"})
        connection.getresponse().read()
        return "answered"
    except (socket.timeout, TimeoutError):
        return "abandoned"
    finally:
        connection.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("data_dir")
    parser.add_argument("abstracts")
    parser.add_argument("--port", type=int, default=18731)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--give-up", type=float, default=3.0)
    args = parser.parse_args()

    body = json.dumps({"text": heavy_text(args.abstracts), "passages": True, "libraries": ["acl"]})
    server = subprocess.Popen(
        [args.binary, "--data-dir", args.data_dir, "serve", "--listen", f"127.0.0.1:{args.port}"],
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        outcomes = []
        threads = [
            threading.Thread(target=lambda: outcomes.append(abandon(args.port, body, args.give_up)))
            for _ in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        left = time.monotonic()
        burned_at_leave = cpu_seconds(server.pid)
        samples = [(left, burned_at_leave)]
        idle_since = None
        while time.monotonic() - left < 300:
            time.sleep(0.1)
            samples.append((time.monotonic(), cpu_seconds(server.pid)))
            window = [s for s in samples if s[0] >= samples[-1][0] - 1.0]
            busy = (window[-1][1] - window[0][1]) / max(window[-1][0] - window[0][0], 1e-9)
            if busy < 0.05 and samples[-1][0] - left >= 1.0:
                idle_since = window[0][0]
                break
        print(json.dumps({
            "clients": args.clients,
            "outcomes": {o: outcomes.count(o) for o in set(outcomes)},
            "text_bytes": len(body),
            "seconds_until_idle_after_last_client_left": round(idle_since - left, 2) if idle_since else None,
            "cpu_seconds_after_last_client_left": round(samples[-1][1] - burned_at_leave, 2),
        }))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
