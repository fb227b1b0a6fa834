"""``@`` in the composer: search files under the workspace's root folder and
attach one (PRODUCT.md §7, 002 输入框 @ 文件搜索).

:class:`MentionController` watches the editor for an ``@keyword`` token that
ends at the cursor (at the start of the text or after white space). A bare
``@`` lists the files changed most recently; each keyword character narrows
the search, which runs after a ~150 ms pause in typing (``search(keyword)`` — the window's coroutine, which
walks the folder in a worker thread) and the results fill the ``@`` popup:
↑/↓ move, Enter or Tab picks, Esc closes (until the token changes). Picking
removes the ``@keyword`` text and emits ``picked(relative_path)``; the window
turns that into a chip. A workspace without a folder says how to set one."""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from mira_desktop.core.errors import MiraError
from mira_desktop.ui.error_texts import error_line

from .popup_slot import PopupSlot

if TYPE_CHECKING:
    from .suggestion_popup import SuggestionPopup

log = logging.getLogger(__name__)

DEBOUNCE_MS = 150
RESULT_LIMIT = 20
#: ``@`` at the start or after white space, then the keyword up to the cursor
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")

#: the window's search: relative paths, or ``None`` when there is no folder to search
SearchFn = Callable[[str], Awaitable[list[str] | None]]
RunFn = Callable[[Coroutine[Any, Any, Any]], object]


def mention_before(text: str) -> tuple[int, str] | None:
    """``(offset of the @, keyword)`` when ``text`` (what precedes the cursor
    in its line) ends with an ``@`` token."""
    match = _MENTION.search(text)
    return None if match is None else (match.start(), match.group(1))


class MentionController(QObject):
    picked = Signal(str)

    def __init__(
        self,
        editor: QPlainTextEdit,
        popup: SuggestionPopup | Callable[[], SuggestionPopup],
        search: SearchFn,
        run: RunFn,
        parent: QObject | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
    ) -> None:
        super().__init__(parent)
        self._editor = editor
        self._slot = PopupSlot(popup, self._on_chosen, self._on_dismissed)
        self._search = search
        self._run = run
        self._generation = 0
        self._dismissed: int | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._refresh)
        editor.textChanged.connect(self._on_edit)
        editor.cursorPositionChanged.connect(self._on_edit)

    def current(self) -> tuple[int, str] | None:
        """``(absolute position of the @, keyword)`` at the cursor, if any."""
        cursor = self._editor.textCursor()
        if cursor.hasSelection():
            return None
        block = cursor.block()
        found = mention_before(block.text()[: cursor.positionInBlock()])
        return None if found is None else (block.position() + found[0], found[1])

    def _on_edit(self) -> None:
        mention = self.current()
        if mention is None:
            self._generation += 1
            self._timer.stop()
            self._dismissed = None
            self._slot.close()
            return
        if mention[0] == self._dismissed:
            return
        self._timer.start()

    def _refresh(self) -> None:
        mention = self.current()
        if mention is None or mention[0] == self._dismissed:
            return
        self._generation += 1
        self._run(self._search_and_show(self._generation, mention[1]))

    async def _search_and_show(self, generation: int, keyword: str) -> None:
        title = (
            self.tr("Files matching “{0}”").format(keyword)
            if keyword
            else self.tr("Recently changed files")
        )
        try:
            paths = await self._search(keyword)
        except MiraError as exc:
            if generation == self._generation:
                self._slot.get().show_message(title, error_line(exc))
            return
        if generation != self._generation:
            return  # typing went on; a newer search follows
        if paths is None:
            self._slot.get().show_message(
                "",
                self.tr(
                    "This workspace has no folder to search. Choose one in the workspace's "
                    "settings (right-click it in the sidebar → Edit)."
                ),
            )
        elif not paths:
            empty = self.tr("No files match.") if keyword else self.tr("The folder has no files.")
            self._slot.get().show_message(title, empty)
        else:
            from .suggestion_popup import Suggestion  # with the popup, on first use

            items = [
                Suggestion(posixpath.basename(p), posixpath.dirname(p), p)
                for p in paths[:RESULT_LIMIT]
            ]
            self._slot.get().show_items(title, items)

    def _on_chosen(self, relative: str) -> None:
        mention = self.current()
        if mention is not None:
            cursor = self._editor.textCursor()
            cursor.setPosition(mention[0])
            cursor.setPosition(
                self._editor.textCursor().position(), QTextCursor.MoveMode.KeepAnchor
            )
            cursor.removeSelectedText()
            self._editor.setTextCursor(cursor)
        self.picked.emit(relative)

    def _on_dismissed(self) -> None:
        mention = self.current()
        if mention is not None:
            self._dismissed = mention[0]  # Esc: stay closed until this token ends
