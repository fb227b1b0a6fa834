"""What a reader returns: a :class:`Document` (name, type, size, hash, the full
extracted text, located :class:`Section` s, image facts, warnings), plus the
:class:`DocumentRefusedError` every reader raises when a file cannot be used.

Locations are small dicts a person can read back as a citation:
``{"page": 3}``, ``{"slide": 2, "notes": True}``, ``{"sheet": "销售"}``,
``{"heading": "Budget", "paragraph": 4}``, ``{"line": 120}``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...core.errors import ReaderError, worded

Kind = Literal["image", "text", "pdf", "docx", "pptx", "xlsx", "audio"]

#: Why a file was refused (``DocumentRefusedError.reason``).
Reason = Literal["unreadable", "encrypted", "empty", "oversized", "unsupported", "binary"]

MB = 1024 * 1024
DEFAULT_MAX_BYTES = 8 * MB


@dataclass(frozen=True, slots=True)
class Section:
    """A located piece of a document's text (a page, slide, sheet, heading…)."""

    text: str
    location: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ImageInfo:
    width: int
    height: int
    format: str  # "PNG" | "JPEG" | "WEBP" | "GIF"
    thumbnail_png: bytes  # at most 256 px on its longer side


@dataclass(frozen=True, slots=True)
class Document:
    """A file that was read successfully. ``text`` is the full extracted text
    (empty for images; for audio, what was said in it); ``sections`` split it
    by location."""

    name: str
    mime: str
    kind: Kind
    size: int
    sha256: str
    text: str = ""
    sections: tuple[Section, ...] = ()
    image: ImageInfo | None = None
    warnings: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        """A small JSON-able description: kind, size, counts of pages / slides /
        sheets / lines, image dimensions, warnings. Stored with attachments."""
        data: dict[str, Any] = {"kind": self.kind, "size": self.size, "chars": len(self.text)}
        if self.kind == "pdf":
            data["pages"] = [s.location["page"] for s in self.sections]
        elif self.kind == "pptx":
            data["slides"] = sorted({s.location["slide"] for s in self.sections})
        elif self.kind == "xlsx":
            data["sheets"] = [s.location["sheet"] for s in self.sections]
        elif self.kind == "docx":
            data["headings"] = [
                s.location["heading"] for s in self.sections if s.location["heading"]
            ]
        elif self.kind == "text":
            data["lines"] = self.text.count("\n") + 1 if self.text else 0
        elif self.kind == "audio":  # kept with the file: it is never sent to be heard again
            data["transcript"] = self.text
        if self.image is not None:
            data["image"] = {
                "width": self.image.width,
                "height": self.image.height,
                "format": self.image.format,
            }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass(frozen=True, slots=True)
class Extracted:
    """What one family's reader hands back to the registry."""

    text: str = ""
    sections: tuple[Section, ...] = ()
    warnings: tuple[str, ...] = ()
    image: ImageInfo | None = None
    mime: str | None = None  # set when the content says otherwise than the name


class DocumentRefusedError(ReaderError):
    """A file that cannot be attached or indexed, with the reason in words
    (``str(error)``), what to do (``hint``) and a machine-readable ``reason``."""

    def __init__(self, message: str, *, reason: Reason, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.reason: Reason = reason

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["reason"] = self.reason
        return data


def human_size(size: float) -> str:
    """``8 MB``, ``12.3 MB``, ``512 KB``, ``17 bytes``."""
    if size >= MB:
        return f"{size / MB:.1f}".removesuffix(".0") + " MB"
    if size >= 1024:
        return f"{size / 1024:.0f} KB"
    return f"{int(size)} bytes"


def short_reason(exc: BaseException) -> str:
    """A library's complaint, short enough to show in a refusal."""
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "…"


REOPEN_HINT = "Open it in the program that made it, save a fresh copy, and attach that."


def refused(
    template: str, fields: Mapping[str, object], reason: Reason, hint: str
) -> DocumentRefusedError:
    """A refusal worded from an English template (``core.errors.worded``: the
    interface translates it, and the fields that are known phrases); ``hint``
    may be a template of the same fields."""
    if "{" in hint:
        return worded(DocumentRefusedError, template, fields, reason=reason, hint_template=hint)
    return worded(DocumentRefusedError, template, fields, reason=reason, hint=hint)


def unreadable(name: str, what: str, detail: str = "") -> DocumentRefusedError:
    if detail:
        template = '"{name}" cannot be read: it is damaged or not really {what} ({detail}).'
    else:
        template = '"{name}" cannot be read: it is damaged or not really {what}.'
    return refused(
        template, {"name": name, "what": what, "detail": detail}, "unreadable", REOPEN_HINT
    )


def empty(
    name: str,
    detail: str = "it contains no text",
    hint: str = "Check that you chose the right file, or paste the text you want instead.",
) -> DocumentRefusedError:
    return refused(
        '"{name}" cannot be used: {detail}.', {"name": name, "detail": detail}, "empty", hint
    )


def encrypted(template: str, name: str, hint: str) -> DocumentRefusedError:
    return refused(template, {"name": name}, "encrypted", hint)


def too_slow(name: str, seconds: float) -> DocumentRefusedError:
    """A read that ran out of time before anything usable came out."""
    return refused(
        '"{name}" takes too long to read: nothing usable came out of it in {seconds} seconds.',
        {"name": name, "seconds": f"{seconds:g}"},
        "oversized",
        "Try a smaller or simpler copy of it (a PDF can be printed to a new PDF).",
    )


def binary(name: str) -> DocumentRefusedError:
    return refused(
        '"{name}" looks like a binary file, not text, so it cannot be read.',
        {"name": name},
        "binary",
        "Attach text, code or a document in a supported format (PDF, DOCX, PPTX, XLSX).",
    )
