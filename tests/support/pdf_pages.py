"""PDFs whose pages cost far more to read than they weigh: several pages
sharing one compressed content stream of tens of megabytes of drawing and
text operators, next to ordinary pages of text."""

from __future__ import annotations

import zlib

from tests.support.documents import pdf_file

HELVETICA = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def text_operators(megabytes: int) -> bytes:
    """``megabytes`` MB of operators that each show one letter."""
    line = b"BT /F1 12 Tf 72 700 Td (a) Tj ET\n"
    return line * (megabytes * 1024 * 1024 // len(line))


def pdf_with_pages(layout: list[str | None], heavy: bytes = b"") -> bytes:
    """A PDF whose pages, in order, show a line of (ASCII) text, or — for
    ``None`` — all draw one shared Flate stream holding ``heavy``."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(data: bytes, extra: str = "") -> bytes:
        return f"<< /Length {len(data)}{extra} >>\nstream\n".encode() + data + b"\nendstream"

    catalog, tree = add(b""), add(b"")
    font = add(HELVETICA.encode())
    shared = add(stream(zlib.compress(heavy, 9), " /Filter /FlateDecode")) if heavy else 0
    kids = []
    for line in layout:
        content = shared or 0
        if line is not None:
            content = add(stream(f"BT /F1 12 Tf 72 700 Td ({line}) Tj ET".encode()))
        kids.append(
            add(
                f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 612 792]"
                f" /Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>".encode()
            )
        )
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R >>".encode()
    refs = " ".join(f"{k} 0 R" for k in kids)
    objects[tree - 1] = f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>".encode()
    return pdf_file(objects, catalog)
