"""Attachments as a model sees them (PRODUCT.md §4, §7).

Only the newest user message's files are read in full into a request: each
document becomes a block with a clear header (name, type, pages / slides /
sheets) and its text with the section markers the readers put in
(``[Page 3]``, ``[Slide 2]``, ``[Sheet: 销售]``), closed by an end line. Older
messages only name their files (``[Attached earlier: report.pdf]``). Images go
as image parts to a model marked vision-capable; for any other model the image
is left out with a visible note — in the request text, in the message's data
(``attachment_notes``) and, before sending, as a :class:`SendWarning`."""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.attachments import Attachment
from ..core.context import SendWarning
from ..core.errors import MiraError
from ..core.models import ChatMessage, ImagePart

if TYPE_CHECKING:
    from .attachments import AttachmentService
    from .readers import Document

log = logging.getLogger(__name__)

IMAGE_NOT_SUPPORTED = "image_not_supported"
_KIND_LABELS = {
    "pdf": "PDF",
    "docx": "Word document",
    "pptx": "PowerPoint presentation",
    "xlsx": "Excel workbook",
    "text": "text",
    "audio": "audio recording, written down by a speech-to-text model",
}


@dataclass(frozen=True, slots=True)
class TurnFile:
    """A file of the newest user message: a stored or prepared attachment, with
    its document when it is already read (a composer's chip)."""

    attachment: Attachment
    document: Document | None = None


def describe(info: dict[str, Any]) -> str:
    """What a file is, for its header: PDF, 3 pages · Excel workbook, sheets: 销售 · text, 12 lines."""
    kind = str(info.get("kind") or "file")
    label = _KIND_LABELS.get(kind, kind)
    if kind == "pdf" and info.get("pages"):
        return f"{label}, {_count(len(info['pages']), 'page')}"
    if kind == "pptx" and info.get("slides"):
        return f"{label}, {_count(len(info['slides']), 'slide')}"
    if kind == "xlsx" and info.get("sheets"):
        return f"{label}, sheets: {', '.join(str(s) for s in info['sheets'])}"
    if kind == "text" and info.get("lines"):
        return f"{label}, {_count(int(info['lines']), 'line')}"
    return label


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def file_block(attachment: Attachment, document: Document) -> str:
    """A document read in full, between a header and an end line."""
    header = f"[Attached file: {attachment.name} — {describe(document.summary())}]"
    notes = [f"(Note: {warning})" for warning in document.warnings]
    body = document.text.strip()
    return "\n".join([header, *notes, body, f"[End of {attachment.name}]"])


def earlier_note(attachments: Sequence[Attachment]) -> str:
    return f"[Attached earlier: {', '.join(a.name for a in attachments)}]"


def not_sent_note(model: str, names: Sequence[str]) -> str:
    """The visible note of images a non-vision model does not get."""
    what = "the image" if len(names) == 1 else "the images"
    listed = f" ({', '.join(names)})" if names else ""
    return f"{model} is not marked as able to see images; {what}{listed} will not be sent."


def image_warning(model: str, names: Sequence[str]) -> SendWarning:
    return SendWarning(IMAGE_NOT_SUPPORTED, not_sent_note(model, names), tuple(names))


@dataclass(frozen=True, slots=True)
class RenderedQuestion:
    """The newest user message as the request carries it, and the notes to keep
    with the message (images left out)."""

    message: ChatMessage
    notes: tuple[str, ...] = ()


async def render_question(
    text: str,
    files: Sequence[TurnFile],
    *,
    model: str,
    vision: bool,
    attachments: AttachmentService | None,
) -> RenderedQuestion:
    """Document blocks first, then the user's text (long inputs read best with
    the question last), images as parts for a vision model."""
    blocks: list[str] = []
    images: list[ImagePart] = []
    skipped: list[str] = []
    for file in files:
        attachment = file.attachment
        if attachment.is_image and not vision:
            skipped.append(attachment.name)
            continue
        try:
            if attachment.is_image:
                data = await _service(attachments).read_bytes(attachment)
                images.append(ImagePart(attachment.mime, base64.b64encode(data).decode("ascii")))
                blocks.append(f"[Attached image: {attachment.name}]")
                continue
            document = file.document or await _service(attachments).load_document(attachment)
        except MiraError as exc:  # a stored file gone missing: say so, send the rest
            log.warning("attachment %s could not be read again: %s", attachment.name, exc)
            blocks.append(f"[Attached file could not be read: {attachment.name} — {exc}]")
            continue
        blocks.append(file_block(attachment, document))
    notes: tuple[str, ...] = ()
    if skipped:
        notes = (not_sent_note(model, skipped),)
        blocks.append(f"[Image not sent: {', '.join(skipped)} — this model cannot see images]")
    content = "\n\n".join([*blocks, text]) if blocks else text
    return RenderedQuestion(ChatMessage("user", content, tuple(images)), notes)


def _service(attachments: AttachmentService | None) -> AttachmentService:
    if attachments is None:
        raise RuntimeError("attachments need an AttachmentService (see bootstrap)")
    return attachments
