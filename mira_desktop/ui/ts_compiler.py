"""A small pure-Python compiler from Qt Linguist ``.ts`` files to binary ``.qm`` files.

Mira ships translations as ``.ts`` sources only; the ``.qm`` that ``QTranslator``
loads is generated at build time (``packaging/build_translations.py``) or, in a fresh
checkout, on first start into the cache folder. Doing it in Python means neither step
needs Qt's ``lrelease`` binary (absent from frozen bundles and some wheels).

The format written here is the one ``QTranslator`` reads (qtbase
``src/corelib/kernel/qtranslator.cpp``): a 16-byte magic, then tagged sections
(tag byte, big-endian 32-bit length, payload). We write the *Language*, *Hashes* and
*Messages* sections. Each message is a run of tagged fields — translation(s) as
UTF-16BE, then comment, source text and context as UTF-8 — ended by ``Tag_End``; the
hash table maps ``elfHash(source + comment)`` to the message's offset, sorted so that
``QTranslator`` can binary-search it. Plural rules are not written: the only shipped
target language (Simplified Chinese) has a single plural form. Standard library only.
"""

from __future__ import annotations

import logging
import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

QM_MAGIC = bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd")

_SECTION_HASHES = 0x42
_SECTION_MESSAGES = 0x69
_SECTION_LANGUAGE = 0xA7

_TAG_END = 1
_TAG_TRANSLATION = 3
_TAG_SOURCE_TEXT = 6
_TAG_CONTEXT = 7
_TAG_COMMENT = 8

_SKIPPED_TYPES = {"obsolete", "vanished"}


@dataclass(frozen=True, slots=True)
class TsMessage:
    """One translatable string of a ``.ts`` file."""

    context: str
    source: str
    translations: tuple[str, ...]
    comment: str = ""


def elf_hash(data: bytes) -> int:
    """The ELF hash ``QTranslator`` uses to index messages (never 0)."""
    h = 0
    for byte in data:
        h = ((h << 4) + byte) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h or 1


def read_ts(path: Path) -> tuple[str, list[TsMessage]]:
    """Return the language and the finished (non-empty, non-obsolete) messages of ``path``."""
    root = ET.parse(path).getroot()
    language = root.get("language", "")
    messages: list[TsMessage] = []
    for context in root.iter("context"):
        name = context.findtext("name", default="")
        for message in context.iter("message"):
            parsed = _parse_message(name, message)
            if parsed is not None:
                messages.append(parsed)
    return language, messages


def _parse_message(context: str, message: ET.Element) -> TsMessage | None:
    translation = message.find("translation")
    if translation is None or translation.get("type") in _SKIPPED_TYPES:
        return None
    forms = [form.text or "" for form in translation.iter("numerusform")]
    texts = tuple(forms) if forms else (translation.text or "",)
    if not any(texts):
        return None
    return TsMessage(
        context=context,
        source=message.findtext("source", default=""),
        translations=texts,
        comment=message.findtext("comment", default=""),
    )


def _field(tag: int, payload: bytes) -> bytes:
    return struct.pack(">BI", tag, len(payload)) + payload


def _encode_message(message: TsMessage) -> bytes:
    parts = [_field(_TAG_TRANSLATION, text.encode("utf-16-be")) for text in message.translations]
    parts.append(_field(_TAG_COMMENT, message.comment.encode("utf-8")))
    parts.append(_field(_TAG_SOURCE_TEXT, message.source.encode("utf-8")))
    parts.append(_field(_TAG_CONTEXT, message.context.encode("utf-8")))
    parts.append(bytes([_TAG_END]))
    return b"".join(parts)


def compile_messages(language: str, messages: list[TsMessage]) -> bytes:
    """Build the bytes of a ``.qm`` file holding ``messages``."""
    blob = bytearray()
    index: list[tuple[int, int]] = []
    for message in messages:
        key = (message.source + message.comment).encode("utf-8")
        index.append((elf_hash(key), len(blob)))
        blob += _encode_message(message)
    index.sort()
    hashes = b"".join(struct.pack(">II", h, offset) for h, offset in index)
    out = bytearray(QM_MAGIC)
    if language:
        out += struct.pack(">BI", _SECTION_LANGUAGE, len(language)) + language.encode("ascii")
    out += struct.pack(">BI", _SECTION_HASHES, len(hashes)) + hashes
    out += struct.pack(">BI", _SECTION_MESSAGES, len(blob)) + blob
    return bytes(out)


def compile_ts(ts_path: Path, qm_path: Path | None = None) -> bytes:
    """Compile ``ts_path``; write the result to ``qm_path`` when given. Returns the bytes."""
    language, messages = read_ts(ts_path)
    data = compile_messages(language, messages)
    if qm_path is not None:
        qm_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = qm_path.with_suffix(qm_path.suffix + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(qm_path)
        log.debug("compiled %s (%d messages) -> %s", ts_path.name, len(messages), qm_path)
    return data
