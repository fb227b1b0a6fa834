"""Media made after an answer (PRODUCT.md §10: its audio, its image), as the
storage keeps it: :class:`MadePart`, stored already, to be the answer's part
(``storage/answer_media_repo.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from .attachments import PartKind


@dataclass(frozen=True, slots=True)
class MadePart:
    kind: PartKind  # "file" (audio) or "image"
    sha256: str
    name: str
    mime: str
    size: int
