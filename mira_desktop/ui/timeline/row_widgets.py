"""The timeline's row widgets, made by kind, and the warm-up of their rendering.

:class:`TimelineView` imports this module with its first row (or its idle
warm-up), not for the first frame: a new chat shows no row, so the widget stack
(rich text, markdown, the Thinking card, sources, the answer's actions) loads
when a thread opens. The inline editor's module loads on the first edit."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from .assistant_message import AssistantMessageWidget
from .markdown import render_markdown_blocks, warm_up
from .message_state import MessageState, ViewOptions
from .message_widget import MessageWidget
from .rich_text import RichTextView
from .row_pool import row_kind
from .system_card import SystemCardWidget
from .user_bubble import UserMessageWidget


def create_row_widget(state: MessageState, options: ViewOptions, parent: QWidget) -> MessageWidget:
    """The widget for ``state``: the inline editor, a question, a card or an answer."""
    kind = row_kind(state)
    if kind == "edit":
        from .message_editor import UserEditWidget  # on the first edit

        return UserEditWidget(state, options, parent)
    if kind == "card":
        return SystemCardWidget(state, options, parent)
    return create_spare_widget(kind, options, parent, state)


def create_spare_widget(
    kind: str, options: ViewOptions, parent: QWidget, state: MessageState | None = None
) -> MessageWidget:
    """A question (``user``) or answer (``answer``) widget; without ``state``
    a hidden skeleton that ``bind`` completes (see ``row_pool``)."""
    if kind == "user":
        return UserMessageWidget(state, options, parent)
    if kind == "answer":
        return AssistantMessageWidget(state, options, parent)
    raise ValueError(f"no spare widget of kind {kind!r}")


def warm_up_rendering(parent: QWidget, dark: bool) -> None:
    """One-off costs (markdown parser, lexer, Qt's text set-up) paid while idle."""
    warm_up()
    import mira_desktop.core.knowledge  # noqa: F401  (an answer's sources, ~30 ms cold)

    probe = RichTextView(parent)
    probe.set_rendered(render_markdown_blocks("*warm* `up`", dark=dark))
    probe.heightForWidth(400)
    probe.deleteLater()
