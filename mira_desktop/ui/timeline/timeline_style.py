"""The timeline's own style sheet: the structure its hand-measured message
widgets rely on, whatever the app's theme says, and the colours of secondary
("muted") and error text taken from the palette (here rather than in
``rich_text``, which loads with the first message row, not the first frame)."""

from __future__ import annotations

import logging

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

log = logging.getLogger(__name__)

#: Message text surfaces are measured by hand, so a generic "QTextEdit { border;
#: padding }" rule of the app's sheet must not reach them; the small actions stay
#: flat. Colours of secondary and error text are added from the palette.
_STRUCTURE_QSS = """
QTextBrowser#messageText, QTextBrowser#userText, QTextBrowser#thinkingText {
    border: none; background: transparent; padding: 0px; margin: 0px;
}
QToolButton#thinkingToggle, QToolButton#copyMessageButton, QToolButton#editMessageButton,
QToolButton#regenerateButton, QToolButton#versionPrevButton, QToolButton#versionNextButton,
QToolButton#speechOpen, QToolButton#speechSave, QToolButton#speechRetry,
QToolButton#imageOpen, QToolButton#imageSave, QToolButton#imageRetry,
QToolButton#toolCardToggle, QToolButton#toolRollback {
    border: none; background: transparent; padding: 2px 4px;
}
QToolButton#versionPrevButton:disabled, QToolButton#versionNextButton:disabled {
    background: transparent;
}
"""


def opaque_colour(colour: QColor, background: QColor) -> QColor:
    """``colour`` blended over ``background`` (rich-text CSS ignores alpha)."""
    alpha = colour.alphaF()
    return QColor.fromRgbF(
        colour.redF() * alpha + background.redF() * (1 - alpha),
        colour.greenF() * alpha + background.greenF() * (1 - alpha),
        colour.blueF() * alpha + background.blueF() * (1 - alpha),
    )


def muted_colour(widget: QWidget) -> QColor:
    """Secondary-text colour of the application palette, made opaque. (A widget
    under a style sheet has its placeholder colour rewritten from ``color``.)"""
    palette = QApplication.palette(widget)
    return opaque_colour(
        palette.color(QPalette.ColorRole.PlaceholderText), palette.color(QPalette.ColorRole.Base)
    )


def palette_is_dark(widget: QWidget) -> bool:
    """Whether the application palette ``widget`` follows is a dark theme."""
    return QApplication.palette(widget).color(QPalette.ColorRole.Window).lightness() < 128


def error_colour(widget: QWidget) -> QColor:
    """The palette has no error role: a red that reads on its window colour."""
    return QColor("#ff7b72" if palette_is_dark(widget) else "#c62828")


def timeline_style_sheet(view: QWidget) -> str:
    """The sheet for ``view`` with its palette's muted and error colours."""
    palette = QApplication.palette(view)
    edge = QColor(muted_colour(view))
    edge.setAlphaF(0.35)
    edge = opaque_colour(edge, palette.color(QPalette.ColorRole.Base))
    return _STRUCTURE_QSS + (
        f'QLabel[tone="muted"] {{ color: {muted_colour(view).name()}; }}\n'
        f'QLabel[tone="error"] {{ color: {error_colour(view).name()}; }}\n'
        f"QFrame#toolCard {{ border: 1px solid {edge.name()}; border-radius: 6px; }}\n"
    )
