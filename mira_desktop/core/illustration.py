"""Illustrated answers (PRODUCT.md §10, image): the value types shared by the
image service, the providers and the window.

A thread with its image switch on, a role and no knowledge base has each
completed answer turned into an image prompt for the provider's image API.
The image is a message part of kind ``image`` in the media store (exports,
the doctor and the collector treat it like any attachment) and its summary is
``data["image"]`` on the answer: :class:`ImageInfo`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .answer_media import MadeStatus, MadeSummary
from .media_keys import IMAGE_KEY


@dataclass(frozen=True, slots=True)
class GeneratedImage:
    """What a provider made: the picture's bytes and the prompt it used."""

    data: bytes
    revised_prompt: str | None = None


@dataclass(frozen=True, slots=True)
class ImageInfo(MadeSummary):
    """An answer's image as stored in ``data["image"]``: its size, the model
    and the prompt it was drawn from."""

    key: ClassVar[str] = IMAGE_KEY
    status: MadeStatus
    error: dict[str, Any] | None = None
    sha256: str = ""
    name: str = ""
    mime: str = ""
    size: int = 0
    width: int = 0
    height: int = 0
    model: str = ""
    prompt: str = ""
