"""The read-only text surface of a message.

Owns :class:`RichTextView`, a frameless, scroll-less ``QTextBrowser`` that sizes
itself to its document (height-for-width), keeps text selectable, opens only
http/https/mailto links (through ``QDesktopServices``) and copies code blocks
when their ``copy-code:N`` anchor is clicked. A streaming answer is shown
through :class:`~.live_markdown.LiveMarkdown` (re-rendering only the last
top-level block, in bounded steps: ``set_markdown_live(..., budget=...)`` and
the ``render_pending`` signal asking for the next step). While the answer
streams, steps are paced by a :class:`~.live_cadence.LiveCadence` (a bounded
share of the Qt thread); between steps new text is only appended plainly.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QMimeData, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QCursor,
    QDesktopServices,
    QGuiApplication,
    QKeyEvent,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QFrame, QSizePolicy, QTextBrowser, QToolTip, QWidget

from ...core.opened_files import mail_link
from .live_cadence import IDLE_MS, LiveCadence, StepSizer
from .live_markdown import STEP_CHARS, LiveMarkdown, normalise_newlines
from .markdown import ZERO_WIDTH_SPACE, RenderedMarkdown, break_long_runs, is_safe_link
from .timeline_style import muted_colour

log = logging.getLogger(__name__)

COPY_CODE_SCHEME = "copy-code"
#: pause between two budgeted rendering steps once the stream has ended: the
#: loop paints and handles input in between (steps back to back add up to a
#: stall); while it streams, the cadence decides (see ``LiveCadence``)
STEP_INTERVAL_MS = IDLE_MS
#: the text width (px) until height-for-width gives the real one
INITIAL_WRAP_WIDTH = 600
#: keys a read-only message passes on to the timeline (it scrolls the conversation)
_PAGE_KEYS = frozenset({Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home, Qt.Key.Key_End})


__all__ = ["STEP_CHARS", "LiveMarkdown", "RichTextView", "normalise_newlines"]


class RichTextView(QTextBrowser):
    """Selectable rich text that is exactly as tall as its content."""

    code_copied = Signal(int)
    #: a budgeted live update left markdown to render: call ``set_markdown_live``
    #: again (with the same text) to render the next step
    render_pending = Signal()

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        object_name: str = "messageText",
        clock: Callable[[], float] = time.perf_counter,
        sizer: StepSizer | None = None,
    ):
        """``sizer``: the step sizes learnt so far (shared by a timeline's rows)."""
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
        # Never 0 (the default): laid out at width 0, an unbroken run (a long
        # token, base64) breaks after every character, at a cost growing with
        # the square of its length (100 KB: over 20 s). Content set before the
        # first height-for-width is laid out at this width, then once again at
        # the real one (a linear cost).
        self.setLineWrapColumnOrWidth(INITIAL_WRAP_WIDTH)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(1)
        # The height comes from height-for-width. Not a fixed vertical policy:
        # that caps the text at its size hint, which follows the current width
        # and stays cached — after a font change a narrower row cut it off.
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.anchorClicked.connect(self._on_anchor_clicked)
        # a link's words can say anything ("[docs.python.org](https://elsewhere)"):
        # hovering shows where it really goes, as browsers do
        self.highlighted.connect(self._on_link_hovered)
        #: the target of the link last shown under the pointer ("" for none)
        self.link_target = ""
        self._live = LiveMarkdown(self.document())
        self._step_timer = QTimer(self)
        self._step_timer.setSingleShot(True)
        self._step_timer.setInterval(STEP_INTERVAL_MS)
        self._step_timer.timeout.connect(self._on_step_due)
        self._clock = clock
        self._cadence = LiveCadence(clock=clock)
        self._paced = False
        self._step_budget = 0  # the budget of the last budgeted step (for ``prepare``)
        #: share of a caller's step budget a step renders (smaller on a slow machine)
        self._sizer = sizer if sizer is not None else StepSizer()
        self._prepare_cost = 0.0
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

    def set_markdown_live(
        self, text: str, *, dark: bool, budget: int | None = None, paced: bool = False
    ) -> None:
        """Show ``text``, re-rendering only what changed since the last call;
        with ``budget`` (characters, e.g. ``STEP_CHARS``) at most that much new
        markdown now, the rest as plain text until ``render_pending`` asks for
        the next step. ``paced`` (the text is still streaming): markdown steps
        run only when the cadence allows (a bounded share of the thread);
        between them an update only appends the new text as plain text."""
        if self._mode != "live":
            self._live.invalidate()
            self._mode = "live"
        ended = self._paced and not paced
        if ended:
            self._cadence.release()  # the stream ended: finish the rendering
            self._step_timer.stop()
        self._paced = paced
        extends = self._live.extends(text, dark)
        # More new text than one step renders (a fast stream's first flush, an
        # answer that arrived at once): this pass only shows it plainly, the
        # step follows in passes of its own (prepare, then edit).
        bulk = (
            budget is not None and len(text) - (self._live.source_length if extends else 0) > budget
        )
        if budget:
            budget = self._sizer.budget(budget)
            # the next step's size, also when this pass renders none: the
            # first step after a bulk update can then be prepared too
            self._step_budget = budget
        if budget is not None and (
            bulk or (extends and (ended or self._step_timer.isActive() or not self._cadence.due()))
        ):
            # a step is not due yet (or the stream just ended: the end of a run
            # has enough to do in this pass): only show the new text (plainly) now
            budget = 0
        started = self._clock()
        self._live.set_text(text, dark=dark, budget=budget, complete=not paced)
        if budget != 0:
            self._cadence.spent(self._clock() - started, paced=paced)
        self._schedule_step()
        self.updateGeometry()

    def _schedule_step(self) -> None:
        if self._live.pending and not self._step_timer.isActive():
            self._step_timer.start(self._cadence.wait_ms())

    def markdown_pending(self) -> bool:
        """A budgeted live update still shows part of the text as plain text."""
        return self._mode == "live" and self._live.pending

    def _on_step_due(self) -> None:
        if not self.markdown_pending():
            return
        started = self._clock()
        if self._step_budget and self._live.prepare(self._step_budget):
            # the step's parsing and HTML import in this pass, its edit in the
            # next one (the loop paints and handles input in between)
            self._prepare_cost = self._clock() - started
            self._step_timer.start(0)
            return
        # The timer waited for the cadence, so the step is due now even if the
        # cadence's clock disagrees by a little: a coarse QTimer fires up to 5 %
        # early (an 83 ms wait ends after ~80 ms), and a step refused for that
        # would be pushed back by a whole pause again, every time — while the
        # answer streams its markdown would never catch up.
        self._cadence.release()
        self.render_pending.emit()  # the step, with the relayout it causes
        edit_cost = self._clock() - started
        cost = edit_cost + self._prepare_cost
        self._sizer.step_cost(max(edit_cost, self._prepare_cost))
        self._prepare_cost = 0.0
        self._cadence.spent(cost, paced=self._paced)
        self._step_timer.stop()
        self._schedule_step()

    def live_step_chars(self) -> int:
        """Characters of markdown the last budgeted step was allowed to render."""
        return self._step_budget

    def live_step_cost(self) -> float:
        """Seconds the last live rendering step took (for diagnostics)."""
        return self._cadence.last_cost

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
            cursor.insertText(break_long_runs(text[len(self._plain) :]), fmt)
        else:
            self._live.invalidate()
            self.document().clear()
            cursor.insertText(break_long_runs(text), fmt)
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

    def is_live_extending(self, text: str, *, dark: bool) -> bool:
        """The live rendering shows a beginning of ``text`` (an update keeps it)."""
        return self._mode == "live" and self._live.extends(text, dark)

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
        width = self.width()
        if width < 200:  # not laid out yet: the width the text has now, not a relayout
            margins = self.contentsMargins()
            wrap = self.lineWrapColumnOrWidth() + margins.left() + margins.right()
            width = max(wrap, 200)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(40, 10)

    # -- events -------------------------------------------------------------------

    def createMimeDataFromSelection(self) -> QMimeData:
        """What a copy of the selection puts on the clipboard: the text as
        written, without the break opportunities of long runs."""
        mime = super().createMimeDataFromSelection()
        if ZERO_WIDTH_SPACE in mime.text():
            html = mime.html() if mime.hasHtml() else ""
            mime.setText(mime.text().replace(ZERO_WIDTH_SPACE, ""))
            if html:
                mime.setHtml(html.replace(ZERO_WIDTH_SPACE, ""))
        return mime

    def wheelEvent(self, event: QWheelEvent) -> None:
        # The timeline scrolls, never the message (and no ctrl+wheel zoom per message).
        event.ignore()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # After a click into a message's words, Page Up/Down, Home and End
        # still scroll the conversation (the parent timeline takes them);
        # with Shift they extend the selection, as in any text.
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if self.isReadOnly() and event.key() in _PAGE_KEYS and not shift:
            event.ignore()
            return
        super().keyPressEvent(event)

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

    def _on_link_hovered(self, url: QUrl) -> None:
        """The target of a web or mail link under the pointer, in a tooltip
        (nothing for the view's own copy and citation links)."""
        href = url.toString()
        if url.isEmpty() or not is_safe_link(href):
            self.link_target = ""
            QToolTip.hideText()
            return
        shown = url.toDisplayString()
        self.link_target = shown
        QToolTip.showText(QCursor.pos(), shown, self)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == COPY_CODE_SCHEME:
            self._copy_code(url.path())
            return
        if url.scheme() == "cite":  # a knowledge-base citation: the message handles it
            return
        href = url.toString()
        if is_safe_link(href):
            if url.scheme().lower() == "mailto":  # no attach=… of a local file
                url = QUrl(mail_link(href))
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
