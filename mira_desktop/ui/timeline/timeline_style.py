"""The timeline's own style sheet: the structure its hand-measured message
widgets rely on, whatever the app's theme says, and the colours of secondary
("muted") and error text taken from the palette."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QWidget

from .rich_text import error_colour, muted_colour

log = logging.getLogger(__name__)

#: Message text surfaces are measured by hand, so a generic "QTextEdit { border;
#: padding }" rule of the app's sheet must not reach them; the small actions stay
#: flat. Colours of secondary and error text are added from the palette.
_STRUCTURE_QSS = """
QTextBrowser#messageText, QTextBrowser#userText, QTextBrowser#thinkingText {
    border: none; background: transparent; padding: 0px; margin: 0px;
}
QToolButton#thinkingToggle, QToolButton#copyMessageButton, QToolButton#editMessageButton,
QToolButton#regenerateButton, QToolButton#versionPrevButton, QToolButton#versionNextButton {
    border: none; background: transparent; padding: 2px 4px;
}
QToolButton#versionPrevButton:disabled, QToolButton#versionNextButton:disabled {
    background: transparent;
}
"""


def timeline_style_sheet(view: QWidget) -> str:
    """The sheet for ``view`` with its palette's muted and error colours."""
    return _STRUCTURE_QSS + (
        f'QLabel[tone="muted"] {{ color: {muted_colour(view).name()}; }}\n'
        f'QLabel[tone="error"] {{ color: {error_colour(view).name()}; }}\n'
    )
