"""A real ``TimelineView`` for the timeline tests, shown offscreen."""

from __future__ import annotations

from typing import Any

from mira_desktop.ui.timeline import TimelineView


def shown_timeline(qtbot: Any, size: tuple[int, int] = (800, 600), **kwargs: Any) -> TimelineView:
    """A timeline (``kwargs`` for its constructor) of ``size``, shown and exposed."""
    widget = TimelineView(**kwargs)
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
