"""Choosing a reader: ``read_document(path)`` checks size, sniffs the type from
the name and the first bytes, runs the reader of that family and returns a
:class:`~.document.Document` — or raises :class:`~.document.DocumentRefusedError`
with a reason a person understands. Pure and blocking; the async wrapper runs it
in a worker thread so the window never waits on a parser."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path, PurePath

from .document import (
    DEFAULT_MAX_BYTES,
    Document,
    DocumentRefusedError,
    Extracted,
    Kind,
    human_size,
    refused,
    short_reason,
    unreadable,
)
from .image_reader import FORMAT_MIME, read_image
from .limits import CancelCheck, ReadBudget, ReadLimits
from .text_reader import decode_text, read_text

log = logging.getLogger(__name__)

# fmt: off
_IMAGES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
           "webp": "image/webp", "gif": "image/gif"}
_OFFICE = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
_TEXT_MIME = {
    "md": "text/markdown", "markdown": "text/markdown", "csv": "text/csv",
    "tsv": "text/tab-separated-values", "json": "application/json",
    "jsonl": "application/jsonl", "ndjson": "application/jsonl", "yaml": "application/yaml",
    "yml": "application/yaml", "xml": "application/xml", "html": "text/html",
    "htm": "text/html", "css": "text/css", "log": "text/plain", "txt": "text/plain",
}
TEXT_EXTENSIONS = frozenset(
    {*_TEXT_MIME, "text", "rst", "adoc", "org", "tex", "bib", "srt", "vtt", "toml", "ini",
     "cfg", "conf", "config", "properties", "env", "editorconfig", "gitignore",
     "gitattributes", "dockerignore", "lock", "py", "pyi", "pyw", "ipynb", "js", "mjs",
     "cjs", "ts", "tsx", "jsx", "vue", "svelte", "java", "kt", "kts", "scala", "groovy",
     "gradle", "go", "rs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "cs", "fs", "swift",
     "m", "mm", "rb", "php", "pl", "pm", "lua", "r", "jl", "dart", "ex", "exs", "erl",
     "hs", "ml", "clj", "elm", "zig", "nim", "v", "sv", "vhd", "sh", "bash", "zsh", "fish",
     "ps1", "psm1", "bat", "cmd", "sql", "graphql", "gql", "proto", "cmake", "mk", "make",
     "dockerfile", "tf", "hcl", "nix", "scss", "sass", "less", "diff", "patch", "out",
     "err", "trace", "sub", "asm", "s"}
)
_TEXT_NAMES = frozenset({"makefile", "dockerfile", "readme", "license", "copying", "authors",
                         "changelog", "notice", "gemfile", "rakefile", "procfile", "vagrantfile"})
# fmt: on
_OLD_OFFICE = {"doc": "docx", "ppt": "pptx", "xls": "xlsx", "rtf": "docx"}

SUPPORTED = "images (PNG, JPG, WebP, GIF), text, Markdown, CSV, JSON, YAML, code, config, logs, PDF, DOCX, PPTX and XLSX"

Reader = Callable[[bytes, str, ReadBudget], Extracted]


def read_document(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    cancel: CancelCheck | None = None,
    limits: ReadLimits | None = None,
) -> Document:
    """Read and validate the file at ``path`` (blocking). ``cancel`` is polled
    between pages, slides, sheets and paragraphs: once it says so the read
    raises :class:`~.limits.ReadCancelledError`. ``limits``: lower bounds
    than the standard ones (:class:`~.limits.ReadLimits`)."""
    data = read_file_bytes(path, max_bytes=max_bytes)
    return read_document_bytes(
        data, Path(path).name, max_bytes=max_bytes, cancel=cancel, limits=limits
    )


async def read_document_async(
    path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Document:
    """:func:`read_document` in a worker thread."""
    return await asyncio.to_thread(read_document, path, max_bytes=max_bytes)


def read_file_bytes(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The file's bytes, refusing a missing file, a folder or one over ``max_bytes``
    before reading it."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if file.is_dir():
            raise refused(
                '"{name}" is a folder, not a file.',
                {"name": file.name},
                "unsupported",
                "Choose a file inside it instead.",
            )
        check_size(file.name, size, max_bytes)
        with file.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise refused(
            '"{name}" no longer exists.',
            {"name": file.name},
            "unreadable",
            "It may have been moved or deleted; choose it again.",
        ) from exc
    except OSError as exc:
        raise refused(
            '"{name}" cannot be opened: {detail}.',
            {"name": file.name, "detail": short_reason(exc)},
            "unreadable",
            "Check that you are allowed to read it.",
        ) from exc
    check_size(file.name, len(data), max_bytes)  # it grew while we looked
    return data


def check_size(name: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise refused(
            '"{name}" is {size}; the limit is {limit}.',
            {"name": name, "size": human_size(size), "limit": human_size(max_bytes)},
            "oversized",
            "Attach a smaller file, or raise the limit in Settings → Chat & data.",
        )
    if size == 0:
        raise refused(
            '"{name}" is empty (0 bytes).',
            {"name": name},
            "empty",
            "Check that you chose the right file.",
        )


def read_document_bytes(
    data: bytes,
    name: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    cancel: CancelCheck | None = None,
    limits: ReadLimits | None = None,
) -> Document:
    """Read a document already in memory (a pasted image, a file from the media
    store); ``name`` decides the type together with the content."""
    check_size(name, len(data), max_bytes)
    kind, mime = detect(data, name)
    extracted = _read(kind, mime, data, name, ReadBudget(limits, cancel))
    return Document(
        name=name,
        mime=extracted.mime or mime,
        kind=kind,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        text=extracted.text,
        sections=extracted.sections,
        image=extracted.image,
        warnings=extracted.warnings,
    )


def detect(data: bytes, name: str) -> tuple[Kind, str]:
    """The family and MIME type of a file, from its extension, else its content."""
    ext = extension(name)
    if ext in _IMAGES:
        return "image", _IMAGES[ext]
    if ext in _OFFICE:
        return ext, _OFFICE[ext]  # type: ignore[return-value]
    if ext in TEXT_EXTENSIONS or (not ext and _stem(name) in _TEXT_NAMES):
        return "text", _TEXT_MIME.get(ext, "text/plain")
    if ext in _OLD_OFFICE:
        new = _OLD_OFFICE[ext]
        raise refused(
            '"{name}" is in the old .{ext} format, which Mira cannot read.',
            {"name": name, "ext": ext, "new": new},
            "unsupported",
            "Save it as .{new} and attach that copy.",
        )
    sniffed = sniff(data)
    if sniffed is not None:
        return sniffed
    if ext:
        template = 'Mira cannot read "{name}": .{ext} files are not supported.'
    else:
        template = 'Mira cannot read "{name}": this kind of file is not supported.'
    fields = {"name": name, "ext": ext, "supported": SUPPORTED}
    raise refused(template, fields, "unsupported", "Supported: {supported}.")


def sniff(data: bytes) -> tuple[Kind, str] | None:
    """Recognise a file without a telling name: images and PDFs by their magic
    bytes, text when it decodes cleanly as UTF-8 (or has a byte-order mark)."""
    head = data[:16]
    magic = {b"\x89PNG": "PNG", b"\xff\xd8\xff": "JPEG", b"GIF8": "GIF"}
    for prefix, fmt in magic.items():
        if head.startswith(prefix):
            return "image", FORMAT_MIME[fmt]
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image", FORMAT_MIME["WEBP"]
    if b"%PDF-" in data[:1024]:
        return "pdf", _OFFICE["pdf"]
    try:
        _, encoding, _ = decode_text(data[:65536], "")
    except DocumentRefusedError:
        return None
    if encoding in ("utf-8", "utf-8-sig", "utf-16", "utf-32"):
        return "text", "text/plain"
    return None


def extension(name: str) -> str:
    suffix = PurePath(name).suffix.lower().lstrip(".")
    if not suffix and name.startswith("."):
        return name.lstrip(".").lower()  # ".gitignore"
    return suffix


def _stem(name: str) -> str:
    return PurePath(name).stem.lower()


#: what a file of each family should have been, in a refusal ("… not really {what}")
_WHAT: dict[str, str] = {
    "image": "an image",
    "text": "a text file",
    "pdf": "a PDF",
    "docx": "a Word document",
    "pptx": "a PowerPoint file",
    "xlsx": "an Excel workbook",
}


def _read(kind: Kind, mime: str, data: bytes, name: str, budget: ReadBudget) -> Extracted:
    """The family's reader on ``data``. Whatever a library raises that its
    reader did not foresee (a ``ValueError`` deep in python-docx, a
    ``RecursionError``, a ``MemoryError``) refuses this file, naming it and the
    library's complaint: never an exception that escapes to the caller (a
    cancel's :class:`~.limits.ReadCancelledError` is no ``Exception``)."""
    try:
        return _reader(kind, mime)(data, name, budget)
    except DocumentRefusedError:
        raise
    except Exception as exc:
        log.warning("reading %s (%s) failed unexpectedly", name, kind, exc_info=exc)
        raise unreadable(name, _WHAT[kind], short_reason(exc)) from exc


def _reader(kind: Kind, mime: str) -> Reader:
    if kind == "image":
        return lambda data, name, _: read_image(data, name, mime)
    if kind == "text":  # as long as the file, which is not longer than its limit
        return lambda data, name, _: read_text(data, name, markdown=mime == "text/markdown")
    if kind == "pdf":
        from .pdf_reader import read_pdf

        return read_pdf
    if kind == "docx":
        from .docx_reader import read_docx

        return read_docx
    if kind == "pptx":
        from .pptx_reader import read_pptx

        return read_pptx
    from .xlsx_reader import read_xlsx

    return read_xlsx
