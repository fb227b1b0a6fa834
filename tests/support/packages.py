"""Office packages taken apart and put back together for tests: a part
replaced or added, and parts that unpack to far more than they weigh — built
without ever holding what they unpack to. A part of zeros is deflated one
megabyte at a time ending in a full flush, so the same block repeated decodes
as one long run; the ZIP around it is written by hand (``zipfile`` can only
compress what it is given)."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024


@dataclass(frozen=True)
class RawPart:
    """A ZIP entry given already deflated (raw deflate, no zlib header)."""

    name: str
    deflated: bytes
    size: int
    crc: int


def deflate(data: bytes, level: int = 6) -> RawPart:
    packer = zlib.compressobj(level, zlib.DEFLATED, -15)
    return RawPart("", packer.compress(data) + packer.flush(), len(data), zlib.crc32(data))


def zeros(name: str, megabytes: int) -> RawPart:
    """``megabytes`` MiB of zeros, deflated from a single megabyte."""
    block = bytes(MB)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    flushed = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(megabytes):
        crc = zlib.crc32(block, crc)
    return RawPart(name, flushed * megabytes + end, megabytes * MB, crc)


def write_zip(parts: list[RawPart]) -> bytes:
    """A ZIP file of deflated ``parts`` (no ZIP64: each under 4 GB)."""
    out = io.BytesIO()
    directory = []
    for part in parts:
        name = part.name.encode()
        offset = out.tell()
        fields = (20, 0, 8, 0, 0x21, part.crc, len(part.deflated), part.size, len(name))
        out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", *fields, 0) + name)
        out.write(part.deflated)
        directory.append(
            struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, *fields, 0, 0, 0, 0, 0, offset)
            + name
        )
    start = out.tell()
    for entry in directory:
        out.write(entry)
    size = out.tell() - start
    count = len(directory)
    out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, size, start, 0))
    return out.getvalue()


def repack(package: bytes, edits: dict[str, bytes], extra: tuple[RawPart, ...] = ()) -> bytes:
    """``package`` with some parts' content replaced (``edits``) and ``extra`` parts added."""
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        parts = []
        for info in archive.infolist():
            content = edits.get(info.filename, archive.read(info.filename))
            packed = deflate(content)
            parts.append(RawPart(info.filename, packed.deflated, packed.size, packed.crc))
    return write_zip([*parts, *extra])


def docx_with_zeros(path: Path, megabytes: int) -> Path:
    """A Word document linking an embedded package of ``megabytes`` MiB of
    zeros (python-docx loads every linked part into memory)."""
    from docx import Document

    plain = io.BytesIO()
    doc = Document()
    doc.add_paragraph("A small letter with a large attachment.")
    doc.save(plain)
    with zipfile.ZipFile(io.BytesIO(plain.getvalue())) as archive:
        rels = archive.read("word/_rels/document.xml.rels")
        types = archive.read("[Content_Types].xml")
    link = (
        b'<Relationship Id="rId99" Target="embeddings/zeros.bin" Type="http://schemas.'
        b'openxmlformats.org/officeDocument/2006/relationships/package"/></Relationships>'
    )
    kind = b'<Default Extension="bin" ContentType="application/octet-stream"/></Types>'
    edits = {
        "word/_rels/document.xml.rels": rels.replace(b"</Relationships>", link),
        "[Content_Types].xml": types.replace(b"</Types>", kind),
    }
    path.write_bytes(
        repack(plain.getvalue(), edits, (zeros("word/embeddings/zeros.bin", megabytes),))
    )
    return path


def docx_with_paragraphs(path: Path, paragraphs: Iterable[str]) -> Path:
    """A Word document of these paragraphs of plain text (written as XML
    directly: python-docx takes seconds to add tens of thousands)."""
    from docx import Document

    plain = io.BytesIO()
    Document().save(plain)
    with zipfile.ZipFile(io.BytesIO(plain.getvalue())) as archive:
        body = archive.read("word/document.xml")
    xml = "".join(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" for text in paragraphs).encode()
    edits = {"word/document.xml": body.replace(b"<w:body>", b"<w:body>" + xml, 1)}
    path.write_bytes(repack(plain.getvalue(), edits))
    return path
