"""Illustrated answers (PRODUCT.md §10, image): the value types shared by the
image service, the providers and the window.

A thread with its image switch on, a role and no knowledge base has each
completed answer turned into an image prompt for the provider's image API.
The image is a message part of kind ``image`` in the media store (exports,
the doctor and the collector treat it like any attachment) and its summary is
``data["image"]`` on the answer: :class:`ImageInfo`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .media_keys import IMAGE_KEY

ImageStatus = Literal["pending", "ready", "failed"]


@dataclass(frozen=True, slots=True)
class GeneratedImage:
    """What a provider made: the picture's bytes and the prompt it used."""

    data: bytes
    revised_prompt: str | None = None


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """An answer's image as stored in ``data["image"]``: being made (never
    stored), made (``sha256``…) or failed (``error``, a MiraError's dict)."""

    status: ImageStatus
    sha256: str = ""
    name: str = ""
    mime: str = ""
    size: int = 0
    width: int = 0
    height: int = 0
    model: str = ""
    prompt: str = ""
    error: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.status == "failed":
            return {"status": self.status, "error": dict(self.error or {})}
        if self.status == "pending":
            return {"status": self.status}
        return {
            "status": self.status,
            "sha256": self.sha256,
            "name": self.name,
            "mime": self.mime,
            "size": self.size,
            "width": self.width,
            "height": self.height,
            "model": self.model,
            "prompt": self.prompt,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any] | None) -> ImageInfo | None:
        """The image of a message's ``data`` (None when it has none)."""
        raw = (data or {}).get(IMAGE_KEY)
        if not isinstance(raw, dict) or raw.get("status") not in ("pending", "ready", "failed"):
            return None
        if raw["status"] != "ready":
            error = raw.get("error")
            return cls(raw["status"], error=error if isinstance(error, dict) else None)
        return cls(
            "ready",
            sha256=str(raw.get("sha256") or ""),
            name=str(raw.get("name") or ""),
            mime=str(raw.get("mime") or ""),
            size=int(raw.get("size") or 0),
            width=int(raw.get("width") or 0),
            height=int(raw.get("height") or 0),
            model=str(raw.get("model") or ""),
            prompt=str(raw.get("prompt") or ""),
        )
