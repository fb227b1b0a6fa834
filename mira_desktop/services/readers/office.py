"""What the three Office readers share: the container checks that run before a
library sees the bytes. DOCX, PPTX and XLSX are ZIP files; an encrypted Office
file (and an old .doc/.ppt/.xls) is an OLE compound file instead.

The ZIP's own directory says how large each part unpacks to
(``ZipInfo.file_size``), and :mod:`zipfile` — which python-docx, python-pptx
and openpyxl all read through — never inflates a part past that size (a part
that claims less than it holds fails its CRC). So a package is judged from its
directory alone, before anything is unpacked: too many parts, too much in
all, or a large part packed far tighter than real documents ever are (a
decompression bomb) is refused."""

from __future__ import annotations

import io
import zipfile

from .document import MB, REOPEN_HINT, human_size, refused, unreadable

ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

_LABELS = {"docx": "a Word document", "pptx": "a PowerPoint file", "xlsx": "an Excel workbook"}

#: what all parts of a package may unpack to together
MAX_UNPACKED_BYTES = 256 * MB
#: parts in a package (a 500-slide deck has about 2,000)
MAX_PARTS = 10_000
#: how much tighter than 1:1 a part larger than ``RATIO_FLOOR`` may be packed:
#: XML packs 5–40:1, pictures 1:1; a bomb packs ~1,000:1
MAX_RATIO = 100
RATIO_FLOOR = 1 * MB


def check_container(data: bytes, name: str, kind: str) -> None:
    """Refuse what is not an Office Open XML package, or one that would unpack
    to too much (:func:`check_package`), saying why."""
    if data.startswith(OLE_MAGIC):
        raise refused(
            '"{name}" is password-protected (or saved in the old Office format).',
            {"name": name, "kind": kind},
            "encrypted",
            "Open it, remove the password, save it as .{kind}, and attach that copy.",
        )
    if not data.startswith(ZIP_MAGIC):
        raise unreadable(name, _LABELS[kind], "it is not an Office file inside")
    check_package(data, name, kind)


def check_package(data: bytes, name: str, kind: str) -> None:
    """Refuse a package that would unpack to too much, from its directory only."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise unreadable(name, _LABELS[kind], "its ZIP directory is damaged") from exc
    if len(parts) > MAX_PARTS:
        raise unreadable(name, _LABELS[kind], "it holds far too many parts")
    total = sum(part.file_size for part in parts)
    if total > MAX_UNPACKED_BYTES:
        raise refused(
            '"{name}" unpacks to {size}; at most {limit} can be read.',
            {"name": name, "size": human_size(total), "limit": human_size(MAX_UNPACKED_BYTES)},
            "oversized",
            "Split it into smaller files, or save a copy without large embedded media.",
        )
    for part in parts:
        if part.file_size > RATIO_FLOOR and part.file_size > MAX_RATIO * part.compress_size:
            raise refused(
                '"{name}" holds a part that unpacks from {packed} to {size}, far more than'
                " documents do; it is refused as a possible decompression bomb.",
                {
                    "name": name,
                    "packed": human_size(part.compress_size),
                    "size": human_size(part.file_size),
                },
                "oversized",
                REOPEN_HINT,
            )


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
