"""Writes the PDF bombs of SECURITY.md's extraction bounds into DIR:

- `content_256m.pdf`: one page whose content stream inflates to 256 MiB (about 0.75 MB on disk);
- `content_2g.pdf`: one page whose content stream inflates to 2 GiB (about 6 MB on disk);
- `pages_100k.pdf`: 100,000 empty pages (one shared, empty content stream);
- `content_120m.pdf`: one page whose content stream inflates to 120 MiB of spaces around a line
  of text: the most a page may hold within the default bounds (it is read).

    python3 benches/scripts/pdf_bombs.py DIR
"""

import sys
import zlib

directory = sys.argv[1]


def write_pdf(path, objects):
    """Writes `objects` (bytes, numbered from 1; object 1 is the catalog) with an xref table."""
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(path, "wb") as f:
        f.write(out)


def flate_of_repeats(unit, total, prefix=b""):
    """`prefix`, then `unit` repeated to `total` bytes, deflated without holding the whole."""
    compressor = zlib.compressobj(9)
    chunk = unit * ((1 << 20) // len(unit))
    parts = [compressor.compress(prefix)]
    written = 0
    while written < total:
        piece = chunk[: total - written]
        parts.append(compressor.compress(piece))
        written += len(piece)
    parts.append(compressor.flush())
    return b"".join(parts)


def content_bomb(path, inflated, unit=b"BT /F1 12 Tf 72 700 Td (bomb) Tj ET\n", prefix=b""):
    # By default text drawing operators, as a real page has them: each one is work for a reader.
    data = flate_of_repeats(unit, inflated, prefix)
    write_pdf(
        path,
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R"
            b" /Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ],
    )


def many_pages(path, pages):
    first_page = 4
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        b"<< /Length 0 >>\nstream\n\nendstream",
    ]
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R >>"
    objects += [page] * pages
    write_pdf(path, objects)


content_bomb(f"{directory}/content_256m.pdf", 256 << 20)
content_bomb(f"{directory}/content_2g.pdf", 2 << 30)
many_pages(f"{directory}/pages_100k.pdf", 100_000)
content_bomb(
    f"{directory}/content_120m.pdf",
    120 << 20,
    unit=b" ",
    prefix=b"BT /F1 12 Tf 72 700 Td (A page of one line and 120 MiB of spaces) Tj ET\n",
)
