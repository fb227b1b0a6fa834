"""``SourcesWidget``: what a knowledge-base answer shows under its text
(PRODUCT.md §3 path 2) — the path it took (answered from the base, the empty
base's refusal, or the note that the base was not searched), degraded-retrieval
warnings, and the numbered Sources list: document, page/slide/sheet and the
snippet with the question's terms in bold.

Entries the answer cites are shown; the others are behind "Show all N
sources" (all are shown when the answer cites none). Clicking an entry's title
opens its document at that place (``citations.open_source``); a citation
clicked in the answer calls :meth:`SourcesWidget.focus_source`, which
highlights the entry for a moment and asks the timeline to bring it into view
(``reveal_requested``, in the parent's coordinates)."""

from __future__ import annotations

import html
import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QCursor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QToolTip, QVBoxLayout

from .citations import open_source

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ...core.knowledge import Source
    from ..timeline.message_state import MessageState

log = logging.getLogger(__name__)

HIGHLIGHT_MS = 1800
_OPEN_SCHEME = "source:"


def snippet_html(source: Source) -> str:
    """The snippet escaped, with its highlighted spans in bold."""
    text, parts, last = source.snippet, [], 0
    for start, end in sorted(source.highlights):
        if start < last or end > len(text) or start >= end:
            continue
        parts.append(html.escape(text[last:start]))
        parts.append(f"<b>{html.escape(text[start:end])}</b>")
        last = end
    parts.append(html.escape(text[last:]))
    return "".join(parts).replace("\n", " ")


def _set_tone(label: QLabel, tone: str) -> None:
    """Muted text, coloured by the timeline's ``QLabel[tone=…]`` rule."""
    label.setProperty("tone", tone)
    label.style().unpolish(label)
    label.style().polish(label)


def _label(parent: QWidget, name: str, *, muted: bool = False, small: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if small:
        font = label.font()
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
        label.setFont(font)
    if muted:
        _set_tone(label, "muted")
    return label


class SourceEntry(QFrame):
    """One numbered source: its title (a link that opens the document) and snippet."""

    def __init__(self, source: Source, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("kbSourceEntry")
        self.source = source
        self.highlighted = False
        self.title = _label(self, "kbSourceTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.title.linkActivated.connect(lambda _href: self.open_document())
        self.snippet = _label(self, "kbSourceSnippet", muted=True, small=True)
        self.snippet.setTextFormat(Qt.TextFormat.RichText)
        self.snippet.setText(snippet_html(source))
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 4, 8, 4)
        column.setSpacing(1)
        column.addWidget(self.title)
        column.addWidget(self.snippet)
        self.retranslate()

    def retranslate(self) -> None:
        source = self.source
        name = html.escape(source.document or source.path)
        title = f'<a href="{_OPEN_SCHEME}{source.number}">[{source.number}] {name}</a>'
        if source.label:
            title += f" · {html.escape(place_label(source))}"
        self.title.setText(title)
        self.title.setToolTip(self.tr("Open {0}").format(source.path))

    def open_document(self) -> bool:
        opened = open_source(self.source)
        if not opened:
            QToolTip.showText(
                QCursor.pos(), self.tr("Could not open {0}").format(self.source.path), self
            )
        return opened

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.highlighted:
            colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
            colour.setAlpha(70)
            painter = QPainter(self)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(QRectF(self.rect()), 6, 6)
            painter.end()


def _tr(text: str) -> str:
    return QCoreApplication.translate("SourcesWidget", text)


def place_label(source: Source) -> str:
    """The translated place of a source: page 3, slide 2 (notes), sheet X…
    (a heading is shown as it is)."""
    location = source.location
    if "page" in location:
        return _tr("page {0}").format(location["page"])
    if "slide" in location and location.get("notes"):
        return _tr("slide {0} (notes)").format(location["slide"])
    if "slide" in location:
        return _tr("slide {0}").format(location["slide"])
    if "sheet" in location:
        return _tr("sheet {0}").format(location["sheet"])
    if not location.get("heading") and "line" in location:
        return _tr("line {0}").format(location["line"])
    if not location.get("heading") and "paragraph" in location:
        return _tr("paragraph {0}").format(location["paragraph"])
    return source.label


class SourcesWidget(QFrame):
    """The knowledge-base part of an answer (see the module docstring)."""

    layout_changed = Signal()  # the message should be measured again
    reveal_requested = Signal(int, int)  # top, bottom in the parent's coordinates

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("kbSources")
        self._key: tuple[Any, ...] | None = None
        self._data: dict[str, Any] = {}
        self._show_all = False
        self._entries: list[SourceEntry] = []
        self.path_label = _label(self, "kbPathLabel", muted=True, small=True)
        self.warnings_label = _label(self, "kbWarnings", muted=True, small=True)
        self.title = QLabel(self)
        self.title.setObjectName("kbSourcesTitle")
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("kbSourcesToggle")
        self.toggle.setAutoRaise(True)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.clicked.connect(self._toggle_all)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 2, 0, 2)
        self._column.setSpacing(2)
        header = QHBoxLayout()
        header.setContentsMargins(0, 4, 0, 0)
        header.addWidget(self.title)
        header.addWidget(self.toggle)
        header.addStretch(1)
        self._column.addWidget(self.path_label)
        self._column.addWidget(self.warnings_label)
        self._column.addLayout(header)

    # -- content ------------------------------------------------------------------

    def show_answer(self, state: MessageState) -> None:
        """Show the knowledge-base data of an answer (cheap when unchanged)."""
        data = state.message.data or {}
        key = (id(data), state.text, state.is_streaming)
        if key == self._key:
            return
        self._key, self._data = key, data
        # the knowledge-base types load with the first answer, not at start-up
        from ...core.knowledge import sources_from_data
        from ...services.kb import parse_citations

        sources = [] if state.is_streaming else sources_from_data(data.get("sources"))
        cited = {c.number for c in parse_citations(state.text, sources)}
        self._rebuild(sources, cited)
        self.retranslate()

    def _rebuild(self, sources: list[Source], cited: set[int]) -> None:
        for entry in self._entries:
            self._column.removeWidget(entry)
            entry.deleteLater()
        self._entries = []
        for source in sorted(sources, key=lambda s: s.number):
            entry = SourceEntry(source, self)
            entry.setProperty("cited", source.number in cited or not cited)
            self._column.addWidget(entry)
            self._entries.append(entry)
        self._apply_visibility()

    def _apply_visibility(self) -> None:
        hidden = [e for e in self._entries if not e.property("cited")]
        for entry in self._entries:
            entry.setVisible(self._show_all or bool(entry.property("cited")))
        self.title.setVisible(bool(self._entries))
        self.toggle.setVisible(bool(hidden))

    def _toggle_all(self) -> None:
        self._show_all = not self._show_all
        self._apply_visibility()
        self.retranslate()
        self.layout_changed.emit()

    # -- citations ----------------------------------------------------------------

    def entries(self) -> list[SourceEntry]:
        return list(self._entries)

    def entry(self, number: int) -> SourceEntry | None:
        return next((e for e in self._entries if e.source.number == number), None)

    def focus_source(self, number: int) -> SourceEntry | None:
        """Highlight source ``number`` for a moment and ask to see it."""
        entry = self.entry(number)
        if entry is None:
            return None
        if not entry.isVisible() and not self._show_all:
            self._toggle_all()
        for other in self._entries:
            other.set_highlighted(other is entry)
        QTimer.singleShot(HIGHLIGHT_MS, entry, lambda: entry.set_highlighted(False))
        parent = self.parentWidget() or self
        top = entry.mapTo(parent, QPoint(0, 0)).y()
        self.reveal_requested.emit(top, top + entry.height())
        return entry

    # -- language -----------------------------------------------------------------

    def retranslate(self) -> None:
        data = self._data
        name = str(data.get("kb_name") or "") or self.tr("knowledge base")
        self.path_label.setText(self._path_text(str(data.get("kb_path") or ""), name))
        warnings = [str(w) for w in data.get("kb_warnings") or []]
        self.warnings_label.setText("\n".join(warnings))
        self.warnings_label.setVisible(bool(warnings))
        self.title.setText(self.tr("Sources"))
        count = len(self._entries)
        self.toggle.setText(
            self.tr("Show cited only") if self._show_all else self.tr("Show all {0}").format(count)
        )
        for entry in self._entries:
            entry.retranslate()

    def _path_text(self, path: str, name: str) -> str:
        if path == "refusal":
            return self.tr(
                "The knowledge base “{0}” has no documents yet, so no model was asked. "
                "Add documents in File → Knowledge bases…"
            ).format(name)
        if path == "fallback":
            return self.tr(
                "The knowledge base “{0}” was not searched: the message has no text question."
            ).format(name)
        if path == "agent":  # the agent's retrieval tool (PRODUCT.md §3 path 3)
            if not self._entries and self._data.get("kb_empty"):
                return self.tr(
                    "The agent searched the knowledge base “{0}”: it has no documents yet."
                ).format(name)
            if not self._entries:
                return self.tr(
                    "The agent searched the knowledge base “{0}”: no passage matched."
                ).format(name)
            return self.tr("The agent searched the knowledge base “{0}”").format(name)
        if not self._entries:
            return self.tr("Searched the knowledge base “{0}”: no passage matched.").format(name)
        return self.tr("Answered from the knowledge base “{0}”").format(name)
