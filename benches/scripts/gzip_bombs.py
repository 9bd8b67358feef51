"""Writes the two gzip bombs of the import's memory bound into DIR:

- `long_line.jsonl.gz`: one 2 GiB line (an unterminated JSON string), then one good line;
- `many_lines.jsonl.gz`: 32 million short invalid lines (`{`), then one good line.

    python3 benches/scripts/gzip_bombs.py DIR
"""

import gzip
import json
import sys

directory = sys.argv[1]
good = json.dumps({"id": "good", "text": " ".join(f"word{i}" for i in range(60)), "lang": "en"})

with gzip.open(f"{directory}/long_line.jsonl.gz", "wb", compresslevel=9) as out:
    out.write(b'{"id":"bomb","text":"')
    chunk = b"a" * (1 << 24)
    for _ in range(128):
        out.write(chunk)
    out.write(b"\n" + good.encode() + b"\n")

with gzip.open(f"{directory}/many_lines.jsonl.gz", "wb", compresslevel=9) as out:
    chunk = b"{\n" * (1 << 20)
    for _ in range(32):
        out.write(chunk)
    out.write(good.encode() + b"\n")
