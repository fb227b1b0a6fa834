"""The chat timeline: a virtualised list of messages rendered from markdown
(see :mod:`.timeline_view`), with streaming, the Thinking card and code copy."""

from .markdown import render_markdown
from .timeline_view import TimelineView

__all__ = ["TimelineView", "render_markdown"]
