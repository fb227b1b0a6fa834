"""Attachments as the rest of the application sees them: a file or image kept
in the media store (by sha256) and shown on a message as a part of kind
``image`` or ``file`` (PRODUCT.md §7). ``info`` is the reader's summary (kind,
pages / slides / sheets, image size, warnings), stored as the part's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

PartKind = Literal["image", "file"]


@dataclass(frozen=True, slots=True)
class Attachment:
    sha256: str
    name: str
    mime: str
    kind: PartKind
    size: int
    info: dict[str, Any] = field(default_factory=dict)
    id: str = ""  # the message_parts row, once attached to a message
    message_id: str | None = None
    ordinal: int = 0

    @property
    def is_image(self) -> bool:
        return self.kind == "image"
