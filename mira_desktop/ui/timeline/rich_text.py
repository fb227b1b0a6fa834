"""The read-only text surface of a message.

Owns :class:`RichTextView`, a frameless, scroll-less ``QTextBrowser`` that sizes
itself to its document (height-for-width), keeps text selectable, opens only
http/https/mailto links (through ``QDesktopServices``) and copies code blocks
when their ``copy-code:N`` anchor is clicked; and :class:`LiveMarkdown`, which
keeps a ``QTextDocument`` equal to the rendered markdown of a *growing* text by
re-rendering only its last top-level block (a 20 KB streaming answer costs a
couple of milliseconds per update instead of a full ``setHtml``).
"""

from __future__ import annotations

import logging
import math

from PySide6.QtCore import QEvent, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QCursor,
    QDesktopServices,
    QGuiApplication,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QFrame, QSizePolicy, QTextBrowser, QToolTip, QWidget

from .markdown import RenderedMarkdown, is_safe_link, render_markdown_split

log = logging.getLogger(__name__)

COPY_CODE_SCHEME = "copy-code"


def normalise_newlines(text: str) -> str:
    """markdown-it works on ``\\n`` line ends; a lone ``\\r`` (half of a ``\\r\\n``
    split across two deltas) is dropped so that offsets stay stable."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "")


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


def error_colour(widget: QWidget) -> QColor:
    """The palette has no error role: a red that reads on its window colour."""
    dark = QApplication.palette(widget).color(QPalette.ColorRole.Window).lightness() < 128
    return QColor("#ff7b72" if dark else "#c62828")


class LiveMarkdown:
    """Keeps ``document`` equal to the rendering of a text that mostly grows.

    The document holds the *stable* top-level blocks followed by the last block;
    an update that only appends re-renders and replaces just that tail. Any other
    change (edit, theme) starts over."""

    def __init__(self, document: QTextDocument):
        self._doc = document
        self._source = ""
        self._dark = False
        self._valid = False
        self._stable_chars = 0
        self._stable_end = 0
        self._stable_code: list[str] = []
        self._tail_code: tuple[str, ...] = ()

    @property
    def code_blocks(self) -> tuple[str, ...]:
        return (*self._stable_code, *self._tail_code)

    def is_showing(self, text: str, *, dark: bool) -> bool:
        return self._valid and self._dark == dark and self._source == normalise_newlines(text)

    def invalidate(self) -> None:
        self._valid = False

    def rerender(self) -> None:
        """Render the current text again from scratch (e.g. new link colours)."""
        source = self._source
        self._valid = False
        self.set_text(source, dark=self._dark)

    def set_text(self, text: str, *, dark: bool) -> None:
        text = normalise_newlines(text)
        if not (self._valid and dark == self._dark and text.startswith(self._source)):
            self._reset(dark)
        elif text == self._source:
            return
        self._source = text
        self._advance()

    def _reset(self, dark: bool) -> None:
        self._doc.clear()
        self._dark = dark
        self._valid = True
        self._source = ""
        self._stable_chars = 0
        self._stable_end = 0
        self._stable_code = []
        self._tail_code = ()

    def _advance(self) -> None:
        split = render_markdown_split(
            self._source[self._stable_chars :], dark=self._dark, code_base=len(self._stable_code)
        )
        if split.stable_chars:
            self._replace_tail(split.stable.html)
            self._stable_end = self._doc.characterCount() - 1
            self._stable_chars += split.stable_chars
            self._stable_code.extend(split.stable.code_blocks)
        self._replace_tail(split.tail.html)
        self._tail_code = split.tail.code_blocks

    def _replace_tail(self, html: str) -> None:
        cursor = QTextCursor(self._doc)
        cursor.setPosition(self._stable_end)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        html = html.strip()
        if not html:
            return
        if self._doc.characterCount() <= 1:
            self._doc.setHtml(html)
            return
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertFragment(QTextDocumentFragment(self._fragment_document(html)))

    def _fragment_document(self, html: str) -> QTextDocument:
        # Inserting a fragment merges its first block into the block at the cursor
        # (losing that block's format). Lead with an empty block so that only the
        # empty block is merged and every real block keeps its own format.
        tmp = QTextDocument()
        tmp.setDefaultStyleSheet(self._doc.defaultStyleSheet())
        tmp.setHtml(html)
        first = tmp.begin()
        if first.length() > 1:
            QTextCursor(tmp).insertBlock(first.blockFormat(), first.charFormat())
        return tmp


class RichTextView(QTextBrowser):
    """Selectable rich text that is exactly as tall as its content."""

    code_copied = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, object_name: str = "messageText"):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setOpenLinks(False)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        # The width is ours to set (height-for-width); with WidgetWidth QTextEdit
        # would reset the document's width to the viewport's behind our back.
        self.setLineWrapMode(QTextBrowser.LineWrapMode.FixedPixelWidth)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(1)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self._live = LiveMarkdown(self.document())
        self._static: RenderedMarkdown | None = None
        self._mode = ""  # "live" | "static" | "plain"
        self._plain = ""
        self._plain_colour: QColor | None = None
        self._apply_stylesheet()

    # -- content ------------------------------------------------------------------

    def set_rendered(self, rendered: RenderedMarkdown) -> None:
        """Show a finished rendering (cached by the caller)."""
        self._mode = "static"
        self._live.invalidate()
        self._static = rendered
        self.document().setHtml(rendered.html)
        self.updateGeometry()

    def set_markdown_live(self, text: str, *, dark: bool) -> None:
        """Show ``text``, re-rendering only what changed since the last call."""
        if self._mode != "live":
            self._live.invalidate()
            self._mode = "live"
        self._live.set_text(text, dark=dark)
        self.updateGeometry()

    def set_plain(self, text: str, *, colour: QColor | None = None) -> None:
        """Show plain text (in ``colour`` if given, which beats any style sheet);
        appending to the previous text only inserts the rest."""
        fmt = QTextCharFormat()
        if colour is not None:
            fmt.setForeground(colour)
        same = self._mode == "plain" and self._plain_colour == colour and self._plain
        cursor = QTextCursor(self.document())
        if same and text.startswith(self._plain):
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[len(self._plain) :], fmt)
        else:
            self._live.invalidate()
            self.document().clear()
            cursor.insertText(text, fmt)
        self._mode = "plain"
        self._plain = text
        self._plain_colour = colour
        self.updateGeometry()

    def code_blocks(self) -> tuple[str, ...]:
        if self._mode == "live":
            return self._live.code_blocks
        return self._static.code_blocks if self._static is not None else ()

    def is_live_showing(self, text: str, *, dark: bool) -> bool:
        return self._mode == "live" and self._live.is_showing(text, dark=dark)

    def is_static_showing(self, rendered: RenderedMarkdown) -> bool:
        return self._mode == "static" and self._static is rendered

    def content_width(self) -> int:
        """Width the text would need without wrapping (for bubbles)."""
        return math.ceil(self.document().idealWidth())

    # -- sizing -------------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        margins = self.contentsMargins()
        inner = max(1, width - margins.left() - margins.right())
        if self.lineWrapColumnOrWidth() != inner:
            self.setLineWrapColumnOrWidth(inner)
        height = self.document().size().height()
        return math.ceil(height) + margins.top() + margins.bottom()

    def sizeHint(self) -> QSize:
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(40, 10)

    # -- events -------------------------------------------------------------------

    def wheelEvent(self, event: QWheelEvent) -> None:
        # The timeline scrolls, never the message (and no ctrl+wheel zoom per message).
        event.ignore()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.refresh_colours()

    def refresh_colours(self) -> None:
        """Follow a palette change. Link and quote colours are resolved when HTML
        is imported, so the content is imported again if they changed."""
        if not self._apply_stylesheet():
            return
        if self._mode == "static" and self._static is not None:
            self.document().setHtml(self._static.html)
        elif self._mode == "live":
            self._live.rerender()

    def _apply_stylesheet(self) -> bool:
        """Set the document's CSS from the application palette (a style sheet
        pins a styled widget's own palette); True if it changed."""
        link = QApplication.palette(self).color(QPalette.ColorRole.Link).name()
        sheet = f"a {{ color: {link}; }} blockquote {{ color: {muted_colour(self).name()}; }}"
        if sheet == self.document().defaultStyleSheet():
            return False
        self.document().setDefaultStyleSheet(sheet)
        return True

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == COPY_CODE_SCHEME:
            self._copy_code(url.path())
            return
        if url.scheme() == "cite":  # a knowledge-base citation: the message handles it
            return
        href = url.toString()
        if is_safe_link(href):
            QDesktopServices.openUrl(url)
        else:
            log.info("refused to open link with scheme %r", url.scheme())

    def _copy_code(self, number: str) -> None:
        blocks = self.code_blocks()
        try:
            code = blocks[int(number)]
        except (ValueError, IndexError):
            log.warning("copy-code anchor %r has no block (have %d)", number, len(blocks))
            return
        QGuiApplication.clipboard().setText(code)
        QToolTip.showText(QCursor.pos(), self.tr("Copied"), self)
        self.code_copied.emit(int(number))
