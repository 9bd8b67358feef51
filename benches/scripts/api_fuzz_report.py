"""Counts what a server answered, from its log (one `request` line per request with method,
route and status), against its OpenAPI document: requests, server errors (5xx), and answers
whose status the document does not list for that operation.

    python3 benches/scripts/api_fuzz_report.py SERVER_LOG crates/api/src/openapi.json
"""

import collections
import json
import re
import sys

LINE = re.compile(r"dupfinder::request: request method=(\S+) route=(\S*) status=(\d+)")

log_path, document_path = sys.argv[1], sys.argv[2]
document = json.load(open(document_path))
documented = {}
for path, item in document["paths"].items():
    for method, operation in item.items():
        if isinstance(operation, dict) and "responses" in operation:
            documented[(method.upper(), path)] = set(operation["responses"])

requests = 0
server_errors = collections.Counter()
undocumented = collections.Counter()
off_document = collections.Counter()
for line in open(log_path):
    match = LINE.search(line)
    if not match:
        continue
    method, route, status = match.groups()
    # The router's catch-all `{*doc_id}` is the document's `{doc_id}`.
    route = route.replace("{*", "{")
    requests += 1
    if status.startswith("5"):
        server_errors[(method, route, status)] += 1
    listed = documented.get((method, route))
    if listed is None:
        # A method or path the document does not have: answered 404/405 by the router.
        off_document[(method, route or "(no route)", status)] += 1
    elif status not in listed and "default" not in listed:
        undocumented[(method, route, status)] += 1

print(json.dumps({
    "requests": requests,
    "server_errors": {" ".join(k): v for k, v in server_errors.items()},
    "undocumented_statuses": {" ".join(k): v for k, v in undocumented.items()},
    "outside_the_document": sum(off_document.values()),
    "outside_the_document_statuses": {
        " ".join(k): v for k, v in off_document.most_common() if not k[2].startswith("4")
    },
}, indent=1))
