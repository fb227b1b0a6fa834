"""Plain text of any kind (TXT, Markdown, CSV, JSON, YAML, code, config, logs):
encoding detection and sectioning by lines (and Markdown headings).

Detection, in order: a byte-order mark (UTF-8, UTF-32, UTF-16); UTF-16 without
a mark, recognised by NUL bytes on one side of each code unit; then NUL bytes
anywhere mean binary (refused); then strict UTF-8; then GB18030 when what it
decodes is mostly common Chinese (GB2312) characters; then cp1252, with any
undecodable byte replaced and a warning."""

from __future__ import annotations

import codecs
import logging
import re

from .document import Extracted, Section, binary, empty

log = logging.getLogger(__name__)

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE: it starts with the same bytes
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SAMPLE = 64 * 1024
_SECTION_SOFT = 2_000  # characters: start a new section at the next blank line
_SECTION_HARD = 8_000  # characters: start a new section at the next line
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")


def decode_text(data: bytes, name: str) -> tuple[str, str, list[str]]:
    """Decode ``data``; return ``(text, encoding, warnings)``. Refuses binary data."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding, []
            except UnicodeDecodeError:
                break  # a mark followed by garbage: fall through to the heuristics
    utf16 = _guess_utf16(data)
    if utf16 is not None:
        return utf16, "utf-16", []
    if b"\x00" in data:
        raise binary(name)
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError:
        pass
    chinese = _try_gb18030(data)
    if chinese is not None:
        return chinese, "gb18030", []
    text = data.decode("cp1252", errors="replace")
    warnings = []
    if "\ufffd" in text:
        warnings.append("Some characters could not be decoded and were replaced with �.")
    return text, "cp1252", warnings


def _guess_utf16(data: bytes) -> str | None:
    sample = data[:_SAMPLE]
    if len(sample) < 2 or b"\x00" not in sample:
        return None
    sample = sample[: len(sample) // 2 * 2]
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    units = len(sample) // 2
    # ASCII-range characters give a NUL in every code unit; CJK ones rarely do.
    if odd > units * 0.02 and even <= units * 0.01:
        encoding = "utf-16-le"
    elif even > units * 0.02 and odd <= units * 0.01:
        encoding = "utf-16-be"
    else:
        return None
    try:
        text = data[: len(data) // 2 * 2].decode(encoding)
    except UnicodeDecodeError:
        return None
    if _printable_ratio(text) < 0.95:
        return None
    return text


def _printable_ratio(text: str) -> float:
    sample = text[:_SAMPLE]
    if not sample:
        return 1.0
    good = sum(1 for ch in sample if ch.isprintable() or ch in "\t\r\n\f")
    return good / len(sample)


def _try_gb18030(data: bytes) -> str | None:
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return None
    wide = [ch for ch in text[:_SAMPLE] if ord(ch) > 0x7F]
    if not wide:
        return None
    common = 0
    for ch in wide:
        try:
            ch.encode("gb2312")
        except UnicodeEncodeError:
            continue
        common += 1
    # Western text misread as GB18030 gives rare characters; real Chinese text
    # is overwhelmingly made of the common GB2312 set.
    return text if common / len(wide) >= 0.8 else None


def read_text(data: bytes, name: str, *, markdown: bool = False) -> Extracted:
    text, encoding, warnings = decode_text(data, name)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise empty(name, "it contains only blank space")
    if _printable_ratio(text) < 0.9:
        raise binary(name)
    log.debug("decoded %s as %s", name, encoding)
    return Extracted(
        text=text, sections=tuple(split_lines(text, markdown=markdown)), warnings=tuple(warnings)
    )


def split_lines(text: str, *, markdown: bool = False) -> list[Section]:
    """Sections of about ``_SECTION_SOFT`` characters, cut at blank lines (and
    before Markdown headings), each located by its first line number."""
    sections: list[Section] = []
    lines: list[str] = []
    start, size, heading = 1, 0, ""

    def flush() -> None:
        body = "\n".join(lines).rstrip()
        if body:
            location: dict[str, object] = {"line": start}
            if heading:
                location["heading"] = heading
            sections.append(Section(body, location))

    for number, line in enumerate(text.split("\n"), 1):
        match = _HEADING.match(line) if markdown else None
        cut = (
            match is not None
            or (not line.strip() and size >= _SECTION_SOFT)
            or size >= _SECTION_HARD
        )
        if cut and lines:
            flush()
            lines, start, size = [], number, 0
        if match is not None:
            heading = match.group(2)
        if not lines:
            if not line.strip():
                continue  # a section never starts with blank lines
            start = number
        lines.append(line)
        size += len(line) + 1
    if lines:
        flush()
    return sections
