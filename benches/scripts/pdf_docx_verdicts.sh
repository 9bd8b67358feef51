#!/bin/sh
# The same manuscripts as DOCX and as PDF, checked against one library: the same verdict and a
# similarity index within 0.02, the quotation recognised? (QUALITY.md, "PDF text")
#
#   benches/scripts/pdf_docx_verdicts.sh DIR [DUPFINDER]
#
# DIR is the `manuscripts` folder benches/scripts/pdf_text_set.py writes (library.jsonl and
# mNN.docx, mNN.pdf); DUPFINDER the binary (default target/release/dupfinder). The library is
# imported into a fresh data directory; each file is checked with `dupfinder check --json`
# (pdftotext switched off: the built-in reader alone). Prints one line per manuscript and the
# count of agreeing pairs; exits 1 when a check fails.
set -eu
DIR=$1
B=${2:-target/release/dupfinder}
DATA=$(mktemp -d)
CONFIG=$DATA/dupfinder.toml
trap 'rm -rf "$DATA"' EXIT
printf '[extract]\npdftotext = ""\n' > "$CONFIG"
"$B" --config "$CONFIG" --data-dir "$DATA/data" import --library ru "$DIR/library.jsonl" > /dev/null
for docx in "$DIR"/m*.docx; do
  stem=${docx%.docx}
  for file in "$stem.docx" "$stem.pdf"; do
    "$B" --config "$CONFIG" --data-dir "$DATA/data" check --json --library ru "$file" > "$DATA/$(basename "$file").json"
  done
done
python3 - "$DATA" <<'EOF'
import glob, json, os, sys

data = sys.argv[1]
agree = total = quoted = 0
for docx in sorted(glob.glob(os.path.join(data, "m*.docx.json"))):
    pdf = docx[: -len(".docx.json")] + ".pdf.json"
    a, b = json.load(open(docx)), json.load(open(pdf))
    same = a["verdict"] == b["verdict"]
    close = abs(a["similarity_index"] - b["similarity_index"]) <= 0.02
    total += 1
    agree += same and close
    quoted += b["shares"]["quoted"] > 0
    name = os.path.basename(docx)[: -len(".docx.json")]
    print(
        f"{name}  docx {a['verdict']:<9} {a['similarity_index']:.3f} ({a['document']['words']} words)"
        f"  pdf {b['verdict']:<9} {b['similarity_index']:.3f} ({b['document']['words']} words)"
        f"  quoted {a['shares']['quoted']:.3f} / {b['shares']['quoted']:.3f}"
        f"  {'same' if same and close else 'DIFFERENT'}"
    )
print(f"same verdict and index within 0.02: {agree} of {total}")
print(f"the «…» [3] quotation recognised in the PDF: {quoted} of {total}")
EOF
