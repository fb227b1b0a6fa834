"""What the three Office readers share: the container check that runs before a
library sees the bytes. DOCX, PPTX and XLSX are ZIP files; an encrypted Office
file (and an old .doc/.ppt/.xls) is an OLE compound file instead."""

from __future__ import annotations

from .document import refused, unreadable

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

_LABELS = {"docx": "a Word document", "pptx": "a PowerPoint file", "xlsx": "an Excel workbook"}


def check_container(data: bytes, name: str, kind: str) -> None:
    """Refuse what is not an Office Open XML package, saying why."""
    if data.startswith(OLE_MAGIC):
        raise refused(
            '"{name}" is password-protected (or saved in the old Office format).',
            {"name": name, "kind": kind},
            "encrypted",
            "Open it, remove the password, save it as .{kind}, and attach that copy.",
        )
    if not data.startswith(ZIP_MAGIC):
        raise unreadable(name, _LABELS[kind], "it is not an Office file inside")


def label(kind: str) -> str:
    return _LABELS[kind]


def cell_text(value: object) -> str:
    """One table or sheet cell as text on one line."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return " ".join(str(value).split())


def row_text(cells: list[str]) -> str:
    """Cells joined by `` | ``, trailing empty cells dropped."""
    while cells and not cells[-1]:
        cells.pop()
    return " | ".join(cells)
