"""The JSON of an import file (a ZIP's: see :func:`_from_zip`), made safe to
store whatever its format: it must be UTF-8 and valid JSON, no larger than
the limit, and nested at most ``MAX_DEPTH`` levels (the exports and the
checks walk it recursively); a lone surrogate (``"\\ud83d"`` — half an emoji,
as a truncating exporter leaves it) cannot be written to the database, so in
any string, and any key, it becomes U+FFFD (the replacement character)
instead of aborting the whole import. An encrypted ZIP is refused, saying
so. Blocking: call from a worker thread."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from ...core.errors import InvalidImportError, worded
from ..readers.document import human_size
from . import zip_files

#: an escaped UTF-16 surrogate in the raw file: only these can make a lone one
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


#: the deepest nesting of objects and lists an import file may have (Mira's
#: and ChatGPT's exports use about ten levels)
MAX_DEPTH = 64
_TOO_DEEP = "{name} is nested too deeply (more than {limit} levels of objects and lists)."
_ENCRYPTED = "{name} is encrypted; unzip it first."
_UNSUPPORTED = "{name} is packed in a way Mira cannot unpack ({detail}); unzip it first."
_WINZIP_AES = 99  # the compression method of a WinZip AES-encrypted entry


def loads(raw: bytes, name: str) -> Any:
    """The JSON of ``raw`` (the file ``name``), lone surrogates replaced."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except RecursionError:  # the parser's own limit (about a thousand levels)
        raise _too_deep(name) from None
    except UnicodeDecodeError:
        raise InvalidImportError(f"{name} is not UTF-8 text.") from None
    except json.JSONDecodeError as exc:
        raise InvalidImportError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
        ) from None
    _check_depth(data, name)
    if _ESCAPED_SURROGATE.search(raw):  # else no string can hold a lone one: no walk
        data = _repaired(data)
    return data


def _check_depth(data: Any, name: str) -> None:
    """Refuse ``data`` nested deeper than ``MAX_DEPTH`` (iterative; only the
    objects and lists are visited: a 50 MB export takes about half a second)."""
    stack: list[tuple[Any, int]] = [(data, 1)] if type(data) in (dict, list) else []
    while stack:  # json.loads makes plain dicts and lists
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(name)
        items = value.values() if type(value) is dict else value
        depth += 1
        for item in items:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, depth))


def _too_deep(name: str) -> InvalidImportError:
    return worded(InvalidImportError, _TOO_DEEP, {"name": name, "limit": MAX_DEPTH})


def _fixed(text: str) -> str:
    return _SURROGATE.sub(REPLACEMENT, text)


def _repaired(data: Any) -> Any:
    """``data`` with every lone surrogate replaced (in place; iterative)."""
    if isinstance(data, str):
        return _fixed(data)
    stack: list[Any] = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str):
                    value[index] = _fixed(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
        elif isinstance(value, dict):
            if any(_SURROGATE.search(key) for key in value):
                items = list(value.items())
                value.clear()
                value.update((_fixed(key), item) for key, item in items)
            for key, item in value.items():
                if isinstance(item, str):
                    value[key] = _fixed(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
    return data


#: the largest import file, or ZIP entry unpacked, that is read (bytes): the
#: whole file is parsed in memory, so a larger one would exhaust it
MAX_IMPORT_BYTES = 1024**3
_TOO_LARGE = "{name} is {size}; an import file can be at most {limit}."
_TOO_LARGE_UNPACKED = (
    "The files to import in {name} come to {size} unpacked; at most {limit} can be read."
)
_TOO_LARGE_HINT = "Nothing was imported. Export fewer conversations into each file."


def _too_large(name: str, size: int, limit: int, template: str = _TOO_LARGE) -> InvalidImportError:
    fields = {"name": name, "size": human_size(size), "limit": human_size(limit)}
    return worded(InvalidImportError, template, fields, hint=_TOO_LARGE_HINT)


def _from_zip(path: Path, limit: int) -> Any:
    """ChatGPT's export ZIP → its conversations; a Mira ZIP → its documents.
    The files under ``attachments/`` are attachments (a ``.json`` one too,
    even a Mira export someone attached): never read as documents, nor is
    what macOS Finder adds (:func:`is_mac_metadata`). No entry,
    nor all the documents together, is read beyond ``limit`` bytes unpacked
    (``ZipInfo.file_size``: reading never inflates an entry past it)."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = [
                info
                for info in archive.infolist()
                if not info.is_dir()
                and not info.filename.startswith(zip_files.ENTRY_PREFIX)
                and not is_mac_metadata(info.filename)
            ]
            chatgpt_entries = [
                i for i in entries if i.filename.rsplit("/", 1)[-1] == "conversations.json"
            ]
            wanted = chatgpt_entries[:1] or [i for i in entries if i.filename.endswith(".json")]
            total = 0
            for info in wanted:
                if info.file_size > limit:
                    raise _too_large(f"{path.name}: {info.filename}", info.file_size, limit)
                total += info.file_size
            if total > limit:
                raise _too_large(path.name, total, limit, _TOO_LARGE_UNPACKED)
            documents = [loads(_read(archive, i, path.name), i.filename) for i in wanted]
    except zipfile.BadZipFile as exc:
        raise InvalidImportError(f"{path.name} is a damaged ZIP file ({exc}).") from None
    if not documents:
        raise InvalidImportError(f"{path.name} holds no JSON file to import.")
    return documents[0] if chatgpt_entries else documents


def is_mac_metadata(name: str) -> bool:
    """Whether a ZIP entry is what macOS Finder adds beside the files it
    compresses (``__MACOSX/…``, AppleDouble ``._name`` files): never a
    document, though it may be named ``._thread.json``."""
    return name.startswith("__MACOSX/") or name.rsplit("/", 1)[-1].startswith("._")


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> bytes:
    """One entry's bytes; an encrypted entry, or one packed with a method
    Python cannot unpack, refuses the file saying so."""
    if info.flag_bits & 0x1 or info.compress_type == _WINZIP_AES:
        raise worded(InvalidImportError, _ENCRYPTED, {"name": name})
    try:
        return archive.read(info)
    except NotImplementedError as exc:  # e.g. a method this Python was built without
        fields = {"name": name, "detail": str(exc) or type(exc).__name__}
        raise worded(InvalidImportError, _UNSUPPORTED, fields) from None


def read_file(path: Path, limit: int = MAX_IMPORT_BYTES) -> Any:
    """The JSON of an import file (a ZIP's: see :func:`_from_zip`); a file
    over ``limit`` bytes is refused before it is read."""
    try:
        if zipfile.is_zipfile(path):
            return _from_zip(path, limit)
        size = path.stat().st_size
        if size > limit:
            raise _too_large(path.name, size, limit)
        return loads(path.read_bytes(), path.name)
    except OSError as exc:
        raise InvalidImportError(
            f"Cannot read {path}: {exc.strerror or exc}.", hint="Check the file's path."
        ) from None
