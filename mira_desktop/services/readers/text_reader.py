"""Plain text of any kind (TXT, Markdown, CSV, JSON, YAML, code, config, logs):
encoding detection and sectioning by lines (and Markdown headings).

Detection, in order: a byte-order mark (UTF-8, UTF-32, UTF-16); UTF-16 without
a mark, recognised by NUL bytes on one side of each code unit; then NUL bytes
anywhere mean binary (refused); then strict UTF-8; then Chinese: GB18030
(Simplified) and Big5 (Traditional) are both tried, strictly, and the one whose
text is mostly *common* Chinese characters wins (GB18030 on a tie); then
cp1252, with any undecodable byte replaced and a warning.

"Common" comes from the two standards' own frequency tiers: the first level
of GB2312 (3,755 characters) and of Big5 (5,401 characters) are each
country's most used characters, and their punctuation rows. Big5 bytes read
as GB18030 give kana, private-use and rare characters ("繁體中文" as
"羉砰いゅ"), and GBK bytes read as Big5 give rare second-level ones, so the
wrong reading scores far below the right one."""

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
    chinese = _try_chinese(data)
    if chinese is not None:
        return chinese[0], chinese[1], []
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


#: the Chinese encodings tried, in order of preference on a tie
_CHINESE = ("gb18030", "cp950", "big5hkscs")
_SCORED = 8_192  # non-ASCII characters looked at


def _try_chinese(data: bytes) -> tuple[str, str] | None:
    """``(text, encoding)`` when ``data`` reads as Chinese in one of the
    encodings of :data:`_CHINESE`: the reading with most common characters,
    if they are at least four in five of its non-ASCII characters."""
    best: tuple[float, str, str] | None = None
    decoded: set[str] = set()
    for encoding in _CHINESE:
        if encoding == "big5hkscs" and "cp950" in decoded:
            continue  # Hong Kong's extension is only for what Windows' Big5 refuses
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        decoded.add(encoding)
        score = _chinese_score(text)
        if best is None or score > best[0]:
            best = (score, text, encoding)
    if best is None or best[0] < 0.8:
        return None
    return best[1], best[2]


def _chinese_score(text: str) -> float:
    """How much of the non-ASCII text is common Chinese: 1 for a first-level
    character (of GB2312 or Big5) or Chinese punctuation, ½ for a
    second-level one, 0 for anything else (kana, private use, rare)."""
    total = 0.0
    seen = 0
    for ch in text:
        if ord(ch) < 0x80:
            continue
        seen += 1
        total += _commonness(ch)
        if seen == _SCORED:
            break
    return total / seen if seen else 0.0


def _commonness(ch: str) -> float:
    best = 0.0
    for encoding, tiers in _TIERS:
        try:
            code = int.from_bytes(ch.encode(encoding), "big")
        except UnicodeEncodeError:
            continue
        for low, high, weight in tiers:
            if low <= code <= high:
                best = max(best, weight)
    return best


# fmt: off
#: (first, last code, weight): the punctuation rows, first-level and second-level characters
_TIERS = (
    ("gb2312", ((0xA1A1, 0xA3FE, 1.0), (0xB0A1, 0xD7F9, 1.0), (0xD8A1, 0xF7FE, 0.5))),
    ("big5", ((0xA140, 0xA3BF, 1.0), (0xA440, 0xC67E, 1.0), (0xC940, 0xF9D5, 0.5))),
)
# fmt: on


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
