"""The chat timeline: a virtualised list of messages rendered from markdown
(see :mod:`.timeline_view`), with streaming, the Thinking card and code copy.

``render_markdown`` is re-exported lazily: importing the package must not
import markdown-it and pygments (the first window does not need them)."""

from __future__ import annotations

from typing import Any

from .timeline_view import TimelineView

__all__ = ["TimelineView", "render_markdown"]


def __getattr__(name: str) -> Any:
    if name == "render_markdown":
        from .markdown import render_markdown

        return render_markdown
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
