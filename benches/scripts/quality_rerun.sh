#!/usr/bin/env bash
# Re-runs every evaluation that QUALITY.md records, with the parameters it records (same corpora,
# seeds, hold-out shares, queries per kind, kinds, configuration), and writes each one's full
# output (standard output and standard error, each command headed by `$ command`) to its own file
# in OUT_DIR, named after the QUALITY.md section it reproduces. Latency sections are not
# evaluations and are left out (benches/RESULTS.md has its own commands).
#
#   benches/scripts/quality_rerun.sh BINARY CORPUS_DIR OUT_DIR [SECTION...]
#
#   BINARY      a dupfinder binary built from the commit under test. QUALITY.md's commands name
#               `target/debug/dupfinder`, `target/release/dupfinder` or `/tmp/dupfinder-opt`; it
#               says the figures do not depend on the profile, and a release build is the fastest
#   CORPUS_DIR  the evaluation corpora (shared/corpus: ru_sci_480.jsonl.gz, acl_abstracts.jsonl.gz,
#               clough_stevenson.jsonl.gz, jats_plos/, pdf_ru_ceur/, pdf_acl_scisumm/)
#   OUT_DIR     a new or empty folder; scratch data (generated queries, data directories) goes
#               to OUT_DIR/tmp, which can be deleted afterwards (about 1 GB). Data directories are
#               imported into, never reset: to run a section again, use a fresh OUT_DIR (running
#               other sections later into the same OUT_DIR is fine: they reuse the shared libraries)
#   SECTION...  only these sections (names as in the list at the bottom; default: all). A
#               section builds the shared libraries it needs first if they are not there yet.
#
# Environment:
#   PYTHON           a Python with `datasketch` for the MinHash rows of "Duplicates inside a
#                    library" (default python3; `pip install datasketch`). Without it those rows
#                    are skipped and the file says so.
#   DISGUISE_CENSUS  a built `disguise_census` example binary for "Honest texts flagged"; without
#                    it the script runs `cargo run --release --example disguise_census` in the
#                    repository this script belongs to (so build that tree, at the commit of BINARY).
#
# OUT_DIR/TIMES.tsv gets one line per section: name, wall seconds, failed commands. Seconds,
# pages per second, latencies and memory printed by the runs depend on the machine and its load;
# they are not quality figures.
#
# Where QUALITY.md's text does not say enough to re-run a figure exactly, the section below says
# what was assumed or why it is not run ("NOT RE-RUN").

set -uo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

abspath() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }

B=$(abspath "$1")
C=$(cd "$2" && pwd -P) || { echo "no corpus dir $2" >&2; exit 2; }
mkdir -p "$3"
O=$(cd "$3" && pwd -P)
shift 3
REPO=$(cd "$(dirname "$0")/../.." && pwd -P)
T="$O/tmp"
PYTHON=${PYTHON:-python3}
mkdir -p "$T"
[ -x "$B" ] || { echo "not an executable: $B" >&2; exit 2; }

OUTFILE=/dev/null
FAILED=0

# Runs one command, appending "$ command" and its output to the current section's file.
run() {
    printf '$ %s\n' "$*" >>"$OUTFILE"
    "$@" >>"$OUTFILE" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        printf '[exit code %d]\n' "$rc" >>"$OUTFILE"
        # An import with rejected lines exits 3: the corpora hold empty and very short texts.
        case " $* " in
            *" import "*) [ $rc -eq 3 ] || FAILED=$((FAILED + 1)) ;;
            *) FAILED=$((FAILED + 1)) ;;
        esac
    fi
    printf '\n' >>"$OUTFILE"
    return 0
}

# A note in the section's file.
note() { printf '# %s\n' "$*" >>"$OUTFILE"; }

# ---------------------------------------------------------------------------------------------
# Shared inputs. gen-tests is deterministic for a given corpus, seed and arguments; a command that
# QUALITY.md gives more than once with the same arguments (the summary's splits in "How the
# figures are made", "The similarity index adds up", the methods' commands and "Latin-script
# language per sentence run") is run once here and its output shared.

E="$T/ev"        # QUALITY.md's /tmp/ev
ED="$E/data"     # QUALITY.md's /tmp/ev/data: libraries cs, ru, acl of the summary's splits

# "How the figures are made": the three splits and libraries every summary row comes from.
summary_data() {
    [ -f "$E/.summary-done" ] && return 0
    # Two invocations of this script on one OUT_DIR (sections run side by side) build it once.
    exec 8>"$T/.summary.lock"
    flock 8
    if [ -f "$E/.summary-done" ]; then flock -u 8; return 0; fi
    local saved=$OUTFILE
    OUTFILE="$O/01-how-the-figures-are-made.txt"
    : >"$OUTFILE"
    note "How the figures are made: the splits and libraries of the summary (gen-tests, import)."
    run "$B" gen-tests "$C/ru_sci_480.jsonl.gz" --out "$E/ru" --holdout 0.15 --per-kind 30 --seed 1
    run "$B" gen-tests "$C/acl_abstracts.jsonl.gz" --out "$E/acl" --holdout 0.05 --per-kind 50 --seed 1
    run "$B" gen-tests --clough "$C/clough_stevenson.jsonl.gz" --out "$E/cs"
    for l in cs ru acl; do
        run "$B" --data-dir "$ED" import --library "$l" "$E/$l/library.jsonl"
    done
    run sha256sum "$E/ru/library.jsonl" "$E/ru/queries.jsonl" "$E/acl/library.jsonl" \
        "$E/acl/queries.jsonl" "$E/cs/library.jsonl" "$E/cs/queries.jsonl"
    touch "$E/.summary-done"
    flock -u 8
    OUTFILE=$saved
}

# The ru_sci_480 library with 100 planted groups ("Duplicates inside a library" and the methods'
# pool protocol give the same command: gen-tests ru_sci_480 --planted-groups 100 --seed 1).
ru_planted() {
    exec 7>"$T/.ru-planted.lock"
    flock 7
    [ -f "$T/dd/ru-planted/.done" ] ||
        { run "$B" gen-tests "$C/ru_sci_480.jsonl.gz" --out "$T/dd/ru-planted" --planted-groups 100 --seed 1 &&
            touch "$T/dd/ru-planted/.done"; }
    flock -u 7
}

# ---------------------------------------------------------------------------------------------
# The sections.

# "ru_sci_480 (408 papers in the library, 1,350 queries)", with the Summary's ru column, the seed
# signature next to the prototype, the PAN line and "The similarity index adds up".
s_ru_sci_480() {
    summary_data
    run "$B" --data-dir "$ED" eval --library ru "$E/ru/queries.jsonl"
}

# "acl_abstracts (56,011 abstracts in the library, 2,250 queries)", with the Summary's ACL column.
s_acl_abstracts() {
    summary_data
    run "$B" --data-dir "$ED" eval --library acl "$E/acl/queries.jsonl"
}

# "Clough–Stevenson (5 originals in the library, 95 answers as queries)".
s_clough_stevenson() {
    summary_data
    run "$B" --data-dir "$ED" eval --library cs "$E/cs/queries.jsonl"
}

# "Structure of full papers (jats_plos, 122 PLOS articles)".
s_structure_jats() {
    run "$B" eval-sections --jats "$C/jats_plos"
}

# "The same on PDFs (pdf_ru_ceur, 7 Russian papers and 1 English, hand-made truth)". The
# `--explain` command QUALITY.md gives beside it prints one paper line by line (no figures);
# it is run too, as a record.
s_structure_pdf_ru_ceur() {
    run "$B" eval-sections --files "$C/pdf_ru_ceur" --truth "$REPO/docs/truth/pdf_ru_ceur_sections.json"
    run "$B" eval-sections --explain "$C/pdf_ru_ceur/demo_ru1.pdf"
}

# "Full papers: false positives against a journal's own archive (jats_plos)", and the same
# figures in "Latin-script language per sentence run" (release build of the final commit).
# QUALITY.md: "The figures are the same with boilerplate_min_docs 3 and 4, the default": the
# second run sets 3 (a configuration file with that one key; a fresh data directory).
s_full_papers() {
    run "$B" --data-dir "$T/fp" eval-full-papers --jats "$C/jats_plos"
    mkdir -p "$T/fp3"
    printf '[check]\nboilerplate_min_docs = 3\n' >"$T/fp3/boilerplate3.toml"
    note "boilerplate_min_docs = 3:"
    run "$B" --config "$T/fp3/boilerplate3.toml" --data-dir "$T/fp3/data" eval-full-papers --jats "$C/jats_plos"
}

# "Passage kinds, PAN measures, and the summary rows after them". The libraries are "imported
# from the ru split" and "from the acl split": the summary's libraries (data directory of
# "How the figures are made"), not imported a second time.
s_passage_kinds() {
    summary_data
    local S="$T/evs"   # QUALITY.md's /tmp/evs
    run "$B" gen-tests "$C/ru_sci_480.jsonl.gz" --out "$S/ruq" --holdout 0.15 --per-kind 30 --seed 1 --kinds partial_copy,quoted_copy
    run "$B" gen-tests "$C/acl_abstracts.jsonl.gz" --out "$S/aclq" --holdout 0.05 --per-kind 50 --seed 1 --kinds partial_copy,quoted_copy
    note "the library files of these splits are the summary's:"
    run cmp "$S/ruq/library.jsonl" "$E/ru/library.jsonl"
    run cmp "$S/aclq/library.jsonl" "$E/acl/library.jsonl"
    run "$B" --data-dir "$ED" eval --library ru "$S/ruq/queries.jsonl"
    run "$B" --data-dir "$ED" eval --library acl "$S/aclq/queries.jsonl"
}

# "Latin-script language per sentence run, boilerplate counted by works, repeated text". Its
# imports (`import --library acl $E/acl/library.jsonl`, `... ru $E/ru/library.jsonl`, "the
# summary's split (same file)") are the summary's imports into the same $E/data: done once.
s_latin_script() {
    summary_data
    run "$B" gen-tests "$C/acl_abstracts.jsonl.gz" --out "$E/aclq" --holdout 0.05 --per-kind 50 --seed 1 --kinds partial_copy,quoted_copy
    run "$B" gen-tests "$C/acl_abstracts.jsonl.gz" --out "$E/aclr" --holdout 0.05 --per-kind 50 --seed 1 --kinds repeated_copy,many_sources
    run "$B" gen-tests "$C/ru_sci_480.jsonl.gz" --out "$E/rur" --holdout 0.15 --per-kind 30 --seed 1 --kinds repeated_copy,many_sources
    run cmp "$E/aclq/library.jsonl" "$E/acl/library.jsonl"
    run cmp "$E/aclr/library.jsonl" "$E/acl/library.jsonl"
    run cmp "$E/rur/library.jsonl" "$E/ru/library.jsonl"
    run "$B" --data-dir "$ED" eval --library acl "$E/aclq/queries.jsonl"
    run "$B" --data-dir "$ED" eval --library acl "$E/aclr/queries.jsonl"
    run "$B" --data-dir "$ED" eval --library ru "$E/rur/queries.jsonl"
}

# "Raw negatives (no cleaning of the foreign pool)". QUALITY.md gives the command as
# `gen-tests … --keep-overlapping --kinds negative_unrelated,negative_same_topic` (elided) and
# the table shows `library acl`, 300 queries = 50 per kind and level: ASSUMED the summary's ACL
# arguments (--holdout 0.05 --per-kind 50 --seed 1) and the summary's ACL library (the hold-out
# is drawn before overlapping documents are dropped, so the library file is the same; checked
# with cmp below).
#
# The table of `partial_containment` / `partial_min_shared` after it: the row 0.06 / 6 is re-run
# with a configuration file setting those two keys of [check] (raw negatives, Clough–Stevenson,
# and the summary's ACL queries for "ACL partial copies found"). NOT RE-RUN: the row "off
# (passages only)" — QUALITY.md does not say which setting turned the rule off. The default row
# is the default runs above (its ACL partial-copy figure, 0.953, predates the Latin-script change).
s_raw_negatives() {
    summary_data
    run "$B" gen-tests "$C/acl_abstracts.jsonl.gz" --out "$E/acl-raw-neg" --holdout 0.05 --per-kind 50 --seed 1 \
        --keep-overlapping --kinds negative_unrelated,negative_same_topic
    run cmp "$E/acl-raw-neg/library.jsonl" "$E/acl/library.jsonl"
    run "$B" --data-dir "$ED" eval --library acl "$E/acl-raw-neg/queries.jsonl"
}

s_raw_negatives_partial_0_06() {
    summary_data
    [ -f "$E/acl-raw-neg/queries.jsonl" ] || s_raw_negatives
    local cfg="$T/partial-0.06-6.toml"
    printf '[check]\npartial_containment = 0.06\npartial_min_shared = 6\n' >"$cfg"
    run cat "$cfg"
    run "$B" --config "$cfg" --data-dir "$ED" eval --library acl "$E/acl-raw-neg/queries.jsonl"
    run "$B" --config "$cfg" --data-dir "$ED" eval --library cs "$E/cs/queries.jsonl"
    run "$B" --config "$cfg" --data-dir "$ED" eval --library acl "$E/acl/queries.jsonl"
}

# "Disguised copies (ru_sci_480, 2026-11-25)", and its table again in "Honest texts flagged, by
# kind" (same commands). QUALITY.md's E=target/tmp/ev is a scratch directory of its own here.
s_disguised_copies() {
    local D="$T/disguise"
    local R="$C/ru_sci_480.jsonl.gz"
    run "$B" gen-tests "$R" --out "$D/ru" --holdout 0.15 --per-kind 30 --seed 1
    run "$B" gen-tests "$R" --out "$D/rud" --holdout 0.15 --per-kind 30 --seed 1 \
        --kinds look_alike_words,transliteration,zero_width,letter_spacing,exact,negative_unrelated,negative_same_topic
    run "$B" --data-dir "$D/data" import --library ru "$D/ru/library.jsonl"
    run "$B" --data-dir "$D/data" eval --library ru "$D/rud/queries.jsonl"
}

# "Honest texts flagged, by kind": `cargo run --example disguise_census -- ru_sci_480.jsonl.gz`.
s_honest_texts() {
    if [ -n "${DISGUISE_CENSUS:-}" ]; then
        run "$DISGUISE_CENSUS" "$C/ru_sci_480.jsonl.gz"
    else
        note "DISGUISE_CENSUS not set: running the example from $REPO"
        run env -C "$REPO" cargo run --release -q --example disguise_census -- "$C/ru_sci_480.jsonl.gz"
    fi
}

# "Honest PDFs flagged (pdf_ru_ceur, pdf_acl_scisumm: 102 real papers)". QUALITY.md checks each
# paper with `--data-dir DIR` and does not say what DIR holds; the flags are the query's own, so
# an empty data directory (no library) is used here. The last command counts the papers with a
# flag, by kind.
s_honest_pdfs() {
    local DIR="$T/pdf-flags"
    local lines="$T/pdf-flags.jsonl"
    : >"$lines"
    local f
    for f in "$C"/pdf_ru_ceur/*.pdf "$C"/pdf_acl_scisumm/*/Documents_PDF/*.pdf; do
        printf '$ %s --data-dir %s check --json %s | jq -c ...\n' "$B" "$DIR" "$f" >>"$OUTFILE"
        "$B" --data-dir "$DIR" check --json "$f" 2>>"$OUTFILE" |
            jq -c '[.document.name, [.flags[].kind]]' | tee -a "$lines" >>"$OUTFILE"
    done
    note "papers, papers with a flag (any kind), and papers per flag kind:"
    run jq -s -c '{papers: length, with_a_flag: map(select((.[1] | length) > 0)) | length,
        with_a_disguise_flag: map(select((.[1] - ["hidden_text"] | length) > 0)) | length,
        per_kind: (map(.[1] | unique[]) | group_by(.) | map({(.[0]): length}) | add)}' "$lines"
}

# "PDF text extraction (pdf_acl_scisumm, pdf_ru_ceur)": the comparison of extractors, the
# pdftotext references of the Russian papers, the largest PDF under /usr/bin/time -v.
s_pdf_extraction() {
    run "$B" eval-extract --pdf-dir "$C/pdf_acl_scisumm" --extractor dupfinder,pdf-extract,pdftotext --per-file
    mkdir -p "$T/ru_txt"
    local f
    for f in "$C"/pdf_ru_ceur/*.pdf; do
        run pdftotext -enc UTF-8 "$f" "$T/ru_txt/$(basename "$f" .pdf).txt"
    done
    run "$B" eval-extract --pdf-dir "$C/pdf_ru_ceur" --txt-dir "$T/ru_txt" --extractor dupfinder,pdf-extract --per-file
    run /usr/bin/time -v "$B" eval-extract --pdf-dir "$C/pdf_acl_scisumm/C94-2154_TRAIN/Documents_PDF/J99-1002.pdf"
}

# "A second reading with pdftotext" (in the PDF text extraction section).
s_pdf_second_reading() {
    if [ ! -f "$T/ru_txt/demo_ru1.txt" ]; then
        mkdir -p "$T/ru_txt"
        local f
        for f in "$C"/pdf_ru_ceur/*.pdf; do
            run pdftotext -enc UTF-8 "$f" "$T/ru_txt/$(basename "$f" .pdf).txt"
        done
    fi
    run "$B" eval-extract --pdf-dir "$C/pdf_acl_scisumm" --extractor dupfinder
    run "$B" eval-extract --pdf-dir "$C/pdf_ru_ceur" --txt-dir "$T/ru_txt" --extractor dupfinder --per-file
}

# "Duplicates inside a library (dedup)": planted groups, dupfinder dedup --truth and
# datasketch's MinHash LSH at thresholds 0.5 (the script's default) and 0.3.
# NOT RE-RUN: "With that rule ACL has 103 natural clusters (and 2,504 related pairs)" and the
# two samples of 50 natural clusters read by hand: the count was taken before the editions rule
# (`editions_apart`, now on by default) and the clusters were judged by reading them.
s_dedup_planted() {
    local DD="$T/dd"
    run "$B" gen-tests "$C/acl_abstracts.jsonl.gz" --out "$DD/acl-planted" --planted-groups 1000 --seed 1
    ru_planted
    run "$B" --data-dir "$DD/data" import --library aclp "$DD/acl-planted/library.jsonl"
    run "$B" --data-dir "$DD/data" import --library rup "$DD/ru-planted/library.jsonl"
    run "$B" --data-dir "$DD/data" dedup --library aclp --truth "$DD/acl-planted/truth.jsonl"
    run "$B" --data-dir "$DD/data" dedup --library rup --truth "$DD/ru-planted/truth.jsonl"
    if "$PYTHON" -c 'import datasketch' 2>/dev/null; then
        local set t
        for set in acl-planted ru-planted; do
            for t in 0.5 0.3; do
                run "$PYTHON" "$REPO/benches/scripts/minhash_dedup.py" "$DD/$set/library.jsonl" "$DD/$set/truth.jsonl" --threshold "$t"
            done
        done
    else
        note "SKIPPED: $PYTHON has no datasketch (pip install datasketch); MinHash LSH rows not re-run"
        FAILED=$((FAILED + 1))
    fi
}

# "Editions of a series": dedup of the summary's ACL library with editions_apart off (before)
# and on (after, the default). Natural clusters = every cluster (the library has no planted
# documents); related pairs = the `related` list.
s_dedup_editions() {
    summary_data
    local X="$T/editions"
    mkdir -p "$X"
    printf '[dedup]\neditions_apart = false\n' >"$X/no-editions.toml"
    run cat "$X/no-editions.toml"
    printf '$ %s\n' "$B --data-dir $ED --config $X/no-editions.toml dedup --library acl > $X/before.json" >>"$OUTFILE"
    "$B" --data-dir "$ED" --config "$X/no-editions.toml" dedup --library acl >"$X/before.json" 2>>"$OUTFILE" || FAILED=$((FAILED + 1))
    printf '$ %s\n' "$B --data-dir $ED dedup --library acl > $X/after.json" >>"$OUTFILE"
    "$B" --data-dir "$ED" dedup --library acl >"$X/after.json" 2>>"$OUTFILE" || FAILED=$((FAILED + 1))
    local j
    for j in before after; do
        run jq -c --arg run "$j" '{run: $run, natural_clusters: .total, related_pairs: (.related | length)}' "$X/$j.json"
    done
}

# "The seed comparison paper's methods side by side (A0–A12, eval --methods)": pool protocol on
# ACL as published and on the ru planted library (with the Dice matrices), gen-tests truth on the
# summary's ru and ACL splits. The ru and acl gen-tests commands of that section are the
# summary's; its ru-planted command is the dedup section's (same arguments).
s_methods() {
    summary_data
    ru_planted
    run "$B" eval --methods all --corpus "$C/acl_abstracts.jsonl.gz"
    run "$B" eval --methods all --corpus "$T/dd/ru-planted/library.jsonl"
    run "$B" eval --methods all --corpus "$E/ru/library.jsonl" "$E/ru/queries.jsonl"
    run "$B" eval --methods all --corpus "$E/acl/library.jsonl" "$E/acl/queries.jsonl"
}

# "Sweeps (eval --sweep ...)". The plots go to OUT_DIR/plots, not into docs/plots of the tree.
s_sweeps() {
    ru_planted
    local L="$T/dd/ru-planted/library.jsonl"
    mkdir -p "$O/plots"
    run "$B" eval --methods all --corpus "$L" --sweep shingle_len=3..15 --plot "$O/plots/ru_shingle_len.svg"
    run "$B" eval --methods all --corpus "$L" --sweep threshold=0.5..0.95:0.05 --plot "$O/plots/ru_threshold.svg"
    run "$B" eval --methods A7 --corpus "$L" --sweep imatch_band=0.1-0.99,0.2-0.99,0.3-0.99,0.2-0.9,0.2-0.8,0.3-0.7 --plot "$O/plots/ru_imatch_band.svg"
    # QUALITY.md records the I-Match band sweep with `--methods A7` but a pool of 356 pairs: with
    # `--methods A7` the pool holds A7's own pairs only (crates/eval/src/sweep.rs: the methods asked for
    # at the base settings plus the swept ones), 107 here. 356 is the pool of all thirteen
    # methods, which `--methods all` gives (imatch_band moves A7 alone, so only A7 is printed).
    # Both are run; which one the recorded figures came from is not written down.
    note "the same sweep with --methods all (see the script's comment):"
    run "$B" eval --methods all --corpus "$L" --sweep imatch_band=0.1-0.99,0.2-0.99,0.3-0.99,0.2-0.9,0.2-0.8,0.3-0.7 --plot "$O/plots/ru_imatch_band_all.svg"
    run "$B" eval --methods all --corpus "$L" --sweep sampling=1,2,4,8,16,32 --plot "$O/plots/ru_sampling.svg"
}

# ---------------------------------------------------------------------------------------------
# name | output file | QUALITY.md section
SECTIONS=(
    "ru_sci_480|02-ru_sci_480.txt|ru_sci_480 (Summary, seed vs prototype, similarity index)"
    "acl_abstracts|03-acl_abstracts.txt|acl_abstracts (Summary, similarity index)"
    "clough_stevenson|04-clough-stevenson.txt|Clough–Stevenson"
    "structure_jats|05-structure-of-full-papers-jats.txt|Structure of full papers (jats_plos)"
    "structure_pdf_ru_ceur|06-structure-on-pdfs-pdf_ru_ceur.txt|The same on PDFs (pdf_ru_ceur)"
    "full_papers|07-full-papers-false-positives.txt|Full papers: false positives (jats_plos)"
    "passage_kinds|08-passage-kinds-pan.txt|Passage kinds, PAN measures"
    "latin_script|09-latin-script-runs-works-repeated-text.txt|Latin-script language per sentence run, works, repeated text"
    "raw_negatives|10-raw-negatives.txt|Raw negatives"
    "raw_negatives_partial_0_06|11-raw-negatives-partial-0.06-6.txt|Raw negatives: partial_containment 0.06 / partial_min_shared 6"
    "disguised_copies|12-disguised-copies.txt|Disguised copies (and its table in Honest texts flagged)"
    "honest_pdfs|14-honest-pdfs-flagged.txt|Honest PDFs flagged"
    "pdf_extraction|15-pdf-text-extraction.txt|PDF text extraction"
    "pdf_second_reading|16-pdf-second-reading.txt|PDF text extraction: a second reading with pdftotext"
    "dedup_planted|17-dedup-planted-groups.txt|Duplicates inside a library (planted groups, MinHash LSH)"
    "methods|18-methods-a0-a12.txt|The seed comparison paper's methods (A0–A12)"
    "sweeps|19-sweeps.txt|Sweeps (eval --sweep)"
    "dedup_editions|20-dedup-editions-of-a-series.txt|Duplicates inside a library: editions of a series"
    "honest_texts|13-honest-texts-flagged.txt|Honest texts flagged, by kind (disguise_census)"
)

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

ONLY=("$@")
for entry in "${SECTIONS[@]}"; do
    IFS='|' read -r name file title <<<"$entry"
    if [ ${#ONLY[@]} -gt 0 ]; then
        known=0
        for w in "${ONLY[@]}"; do [ "$w" = "$name" ] && known=1; done
        [ $known -eq 1 ] || continue
    fi
    # The shared splits and libraries are timed on their own.
    case $name in
        ru_sci_480 | acl_abstracts | clough_stevenson | passage_kinds | latin_script | raw_negatives* | methods | dedup_editions)
            if [ ! -f "$E/.summary-done" ]; then
                start=$(date +%s.%N)
                FAILED=0
                summary_data
                end=$(date +%s.%N)
                printf '%s\t%.0f\t%d\n' "how_the_figures_are_made" "$(elapsed "$start" "$end")" "$FAILED" >>"$O/TIMES.tsv"
            fi
            ;;
    esac
    OUTFILE="$O/$file"
    : >"$OUTFILE"
    printf '# QUALITY.md: %s\n# binary: %s\n# started: %s\n\n' "$title" "$B" "$(date -Is)" >>"$OUTFILE"
    FAILED=0
    start=$(date +%s.%N)
    "s_$name"
    end=$(date +%s.%N)
    secs=$(elapsed "$start" "$end")
    printf '# finished: %s, %.0f s, %d failed commands\n' "$(date -Is)" "$secs" "$FAILED" >>"$OUTFILE"
    printf '%s\t%.0f\t%d\n' "$name" "$secs" "$FAILED" >>"$O/TIMES.tsv"
    echo "$name: $(printf '%.0f' "$secs") s, $FAILED failed -> $OUTFILE"
done
