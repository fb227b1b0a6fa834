"""Media made after an answer (PRODUCT.md §10: its audio, its image), as the
storage keeps it: :class:`MadePart`, stored already, to be the answer's part
(``storage/answer_media_repo.py``), and :class:`MadeSummary`, what the
summaries under ``data[key]`` (``SpeechInfo``, ``ImageInfo``) share."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, TypeVar

from .attachments import PartKind

MadeStatus = Literal["pending", "ready", "failed"]
_STATUSES = ("pending", "ready", "failed")
S = TypeVar("S", bound="MadeSummary")


@dataclass(frozen=True, slots=True)
class MadePart:
    kind: PartKind  # "file" (audio) or "image"
    sha256: str
    name: str
    mime: str
    size: int


class MadeSummary:
    """A summary dataclass with ``status`` and ``error`` first, then fields
    with defaults of their type (``""``, ``0``, ``False``): being made (never
    stored), made, or failed (``error``, a MiraError's dict). A made one with
    an ``error`` is kept after an attempt to make it again failed
    (:attr:`retry_failed`)."""

    __slots__ = ()
    key: ClassVar[str]
    status: MadeStatus
    error: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        if self.status == "failed":
            return {"status": self.status, "error": dict(self.error or {})}
        if self.status == "pending":
            return {"status": self.status}
        made = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "error"}  # type: ignore[arg-type]
        return {**made, "error": dict(self.error)} if self.error else made

    @property
    def retry_failed(self) -> bool:
        """Made, and kept after an attempt to make it again failed (``error``)."""
        return self.status == "ready" and bool(self.error)

    @classmethod
    def from_data(cls: type[S], data: dict[str, Any] | None) -> S | None:
        """The summary in a message's ``data`` (None when it has none)."""
        raw = (data or {}).get(cls.key)
        if not isinstance(raw, dict) or raw.get("status") not in _STATUSES:
            return None
        if raw["status"] != "ready":
            error = raw.get("error")
            return cls(raw["status"], error=error if isinstance(error, dict) else {})  # type: ignore[call-arg]
        values = {}
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name not in ("status", "error"):
                default: Any = f.default  # "", 0 or False: its type converts
                values[f.name] = type(default)(raw.get(f.name) or default)
        error = raw.get("error")
        return cls("ready", error=error if isinstance(error, dict) and error else None, **values)  # type: ignore[call-arg]
