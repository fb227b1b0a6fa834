"""Document readers (attachments, knowledge bases): one module per file family
and a registry choosing among them. Qt-free and blocking; the heavy libraries
(pypdf, python-docx, python-pptx, openpyxl, Pillow) are imported inside the
reader functions so start-up does not pay for them. Use
:func:`read_document_async` from the event loop."""

from __future__ import annotations

from .document import (
    DEFAULT_MAX_BYTES,
    Document,
    DocumentRefusedError,
    ImageInfo,
    Kind,
    Reason,
    Section,
    human_size,
)
from .limits import CancelCheck, ReadCancelledError, ReadLimits
from .registry import (
    SUPPORTED,
    TEXT_EXTENSIONS,
    detect,
    read_document,
    read_document_async,
    read_document_bytes,
    read_file_bytes,
)
from .text_reader import decode_text

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SUPPORTED",
    "TEXT_EXTENSIONS",
    "CancelCheck",
    "Document",
    "DocumentRefusedError",
    "ImageInfo",
    "Kind",
    "ReadCancelledError",
    "ReadLimits",
    "Reason",
    "Section",
    "decode_text",
    "detect",
    "human_size",
    "read_document",
    "read_document_async",
    "read_document_bytes",
    "read_file_bytes",
]
