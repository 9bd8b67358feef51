#!/usr/bin/env python3
"""Builds the set on which PDF text is measured (QUALITY.md, "PDF text").

    benches/scripts/pdf_text_set.py CORPUS OUT [--ru 24] [--plos 12] [--manuscripts 20]
                                   [--only text|manuscripts]

CORPUS is the folder holding `ru_sci_480.jsonl.gz` and `jats_plos/`. In OUT it writes:

- `text/<stem>.txt`: a paper's source text (title, then one paragraph a line), and the same
  paper printed to PDF by Chromium (`<stem>.chromium.pdf`, from `<stem>.html`) and by
  LibreOffice (`<stem>.libreoffice.pdf`, from the DOCX LibreOffice makes of the HTML). Russian
  papers (`ru_*`) come from `ru_sci_480`, English ones (`plos_*`) from the bodies of `jats_plos`.
  Half of the papers set paragraphs apart by spacing, half by a first-line indent (GOST style);
  the fonts take turns: Liberation Serif (Times New Roman's metrics, a browser's default),
  Liberation Sans (Arial's), DejaVu Serif.
  `dupfinder eval-pdf-text --set OUT/text` measures them.
- `manuscripts/library.jsonl`: 95 Russian papers, the library; `manuscripts/mNN.{html,docx,pdf}`:
  20 manuscripts, each 60 % of one library paper, two paragraphs of a second and a «…» [3]
  quotation of a third, with as much text again from a paper outside the library (its own
  text) and a reference list, as DOCX (LibreOffice) and as a PDF printed by Chromium. `benches/scripts/pdf_docx_verdicts.sh OUT/manuscripts` checks both against the
  library and compares.

Needs `chromium` and `soffice` (Debian: chromium, libreoffice-writer-nogui). Deterministic
for a given corpus (papers are taken in order, the manuscripts' parts by a fixed rule).
"""

import argparse
import gzip
import html
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SPACED = "p { margin: 0 0 0.5em 0; text-align: justify; }"
INDENTED = "p { margin: 0; text-indent: 1.25cm; text-align: justify; }"


# Times New Roman, Arial and a third face, as their metric twins on Linux; the first is what a
# browser prints by default.
FONTS = ["Liberation Serif", "Liberation Sans", "DejaVu Serif"]


def page_html(title, paragraphs, n, lang, references=()):
    style = INDENTED if n % 2 == 1 else SPACED
    font = FONTS[n % len(FONTS)]
    body = "".join(f"<p>{html.escape(p)}</p>\n" for p in paragraphs)
    refs = ""
    if references:
        heading = "Список литературы" if lang == "ru" else "References"
        refs = f"<h2>{heading}</h2>\n" + "".join(
            f"<p>{html.escape(r)}</p>\n" for r in references
        )
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        f'<style>body {{ font-family: "{font}"; font-size: 12pt; }} {style}</style>'
        f"</head><body>\n<h1>{html.escape(title)}</h1>\n{body}{refs}</body></html>\n"
    )


def run(args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def chromium(html_path, pdf_path):
    run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--print-to-pdf={pdf_path}",
            html_path,
        ]
    )


def soffice(paths, target, outdir):
    for start in range(0, len(paths), 20):
        run(["soffice", "--headless", "--convert-to", target, "--outdir", outdir] + paths[start : start + 20])


def ru_papers(corpus):
    with gzip.open(os.path.join(corpus, "ru_sci_480.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            paragraphs = [p.strip() for p in doc["text"].split("\n") if len(p.split()) >= 8]
            if len(paragraphs) >= 12:
                yield doc["id"], doc["title"].strip(), paragraphs


def plos_papers(corpus):
    folder = os.path.join(corpus, "jats_plos")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".xml"):
            continue
        root = ET.parse(os.path.join(folder, name)).getroot()
        title = "".join(root.find(".//article-title").itertext()).strip()
        body = root.find(".//body")
        if body is None:
            continue
        paragraphs = []
        for p in body.iter("p"):
            text = re.sub(r"\s+", " ", "".join(p.itertext())).strip()
            if len(text.split()) >= 8:
                paragraphs.append(text)
        if len(paragraphs) >= 12:
            yield name[: -len(".xml")].replace(".", "_"), title, paragraphs[:40]


def text_set(corpus, out, ru, plos):
    folder = os.path.join(out, "text")
    os.makedirs(folder, exist_ok=True)
    papers = [("ru", p) for _, p in zip(range(ru), ru_papers(corpus))]
    papers += [("en", p) for _, p in zip(range(plos), plos_papers(corpus))]
    htmls = []
    for n, (lang, (id_, title, paragraphs)) in enumerate(papers):
        stem = f"{'ru' if lang == 'ru' else 'plos'}_{re.sub(r'[^A-Za-z0-9_]', '_', str(id_))}"
        paragraphs = paragraphs[:30]
        with open(os.path.join(folder, stem + ".txt"), "w", encoding="utf-8") as f:
            f.write(title + "\n\n" + "\n\n".join(paragraphs) + "\n")
        path = os.path.join(folder, stem + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(page_html(title, paragraphs, n, lang))
        chromium(path, os.path.join(folder, stem + ".chromium.pdf"))
        htmls.append(path)
    staging = os.path.join(out, "staging")
    os.makedirs(staging, exist_ok=True)
    soffice(htmls, "docx:MS Word 2007 XML", staging)
    docx = sorted(os.path.join(staging, f) for f in os.listdir(staging) if f.endswith(".docx"))
    soffice(docx, "pdf", staging)
    for name in os.listdir(staging):
        if name.endswith(".pdf"):
            shutil.move(
                os.path.join(staging, name),
                os.path.join(folder, name[: -len(".pdf")] + ".libreoffice.pdf"),
            )
    shutil.rmtree(staging)
    print(f"{len(papers)} papers in {folder}", file=sys.stderr)


def sentences(paragraph):
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[А-ЯЁA-Z])", paragraph) if s]


def manuscripts(corpus, out, count):
    folder = os.path.join(out, "manuscripts")
    os.makedirs(folder, exist_ok=True)
    papers = [p for _, p in zip(range(95 + count), ru_papers(corpus))]
    # The library; the papers after it lend the manuscripts text of their own.
    library, outside = papers[:95], papers[95:]
    with open(os.path.join(folder, "library.jsonl"), "w", encoding="utf-8") as f:
        for id_, title, paragraphs in library:
            record = {"id": str(id_), "title": title, "text": "\n\n".join(paragraphs)}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    htmls = []
    for k in range(count):
        a = library[k]
        b = library[(k + 31) % len(library)]
        c = library[(k + 62) % len(library)]
        kept = a[2][: max(1, round(len(a[2]) * 0.6))]
        borrowed = b[2][2:4]
        quote = " ".join(sentences(c[2][1])[:2])
        own = (
            "В настоящей работе рассматривается вопрос, близкий к исследованиям коллег, "
            f"и, как отмечается в литературе, «{quote}» [3]. Мы опираемся на это наблюдение "
            "и развиваем его на новом материале."
        )
        # As much text of its own as it copies, before and after; the quotation in the middle
        # of the copied part, where a page may break it.
        mine = outside[k][2][: len(kept)]
        half = len(kept) // 2
        body = mine[: len(mine) // 2] + kept[:half] + [own] + kept[half:] + mine[len(mine) // 2 :] + borrowed
        references = [
            f"1. {a[1]} // Научный журнал. 2020. № 1. С. 10–20.",
            f"2. {b[1]} // Научный журнал. 2021. № 2. С. 30–40.",
            f"3. {c[1]} // Научный журнал. 2022. № 3. С. 50–60.",
        ]
        stem = f"m{k + 1:02d}"
        path = os.path.join(folder, stem + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(page_html(f"Рукопись {k + 1}: {a[1]}", body, k, "ru", references))
        chromium(path, os.path.join(folder, stem + ".pdf"))
        htmls.append(path)
    soffice(htmls, "docx:MS Word 2007 XML", folder)
    print(f"{count} manuscripts and a library of {len(library)} in {folder}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("out")
    parser.add_argument("--ru", type=int, default=24)
    parser.add_argument("--plos", type=int, default=12)
    parser.add_argument("--manuscripts", type=int, default=20)
    parser.add_argument("--only", choices=["text", "manuscripts"], help="build one half only")
    args = parser.parse_args()
    if args.only != "manuscripts":
        text_set(args.corpus, args.out, args.ru, args.plos)
    if args.only != "text":
        manuscripts(args.corpus, args.out, args.manuscripts)


if __name__ == "__main__":
    main()
