"""``/`` at the start of the composer: the command menu (002 快捷命令).

:class:`CommandController` opens the ``/`` popup while the whole draft is a
single ``/word`` (no space yet) and filters it by what follows the slash:
``compact`` (summarise the conversation into a "Context compressed" card;
``/compact [instructions]`` is then sent from the composer) and one
``skill:<name>`` entry per folder of the workspace root's ``.agent/skills/``
(``skills()`` — the window's coroutine, reading the folder in a worker
thread). Picking an entry writes ``/compact `` or ``/skill:<name> `` into the
composer for the user to finish; expanding skills is the agent's business."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QPlainTextEdit

from .popup_slot import PopupSlot

if TYPE_CHECKING:
    from .suggestion_popup import Suggestion, SuggestionPopup

log = logging.getLogger(__name__)

COMPACT = "compact"
SKILL_PREFIX = "skill:"
_COMMAND = re.compile(r"/(\S*)")
#: as the agent reads a skill call (``services/agent/workspace_notes.py``)
_SKILL_CALL = re.compile(r"\s*/skill:[^\s/\\]+(?:\s|$)")

SkillsFn = Callable[[], Awaitable[list[str]]]
RunFn = Callable[[Coroutine[Any, Any, Any]], object]


def parse_compact(text: str) -> str | None:
    """The instructions of a ``/compact [instructions]`` draft ("" for none);
    ``None`` when ``text`` is not that command."""
    stripped = text.strip()
    if stripped == "/" + COMPACT:
        return ""
    if stripped.startswith("/" + COMPACT) and stripped[len(COMPACT) + 1].isspace():
        return stripped[len(COMPACT) + 1 :].strip()
    return None


def is_skill_call(text: str) -> bool:
    """Whether ``text`` starts with ``/skill:<name>`` (what the agent expands)."""
    return _SKILL_CALL.match(text) is not None


class CommandController(QObject):
    def __init__(
        self,
        editor: QPlainTextEdit,
        popup: SuggestionPopup | Callable[[], SuggestionPopup],
        skills: SkillsFn,
        run: RunFn,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._editor = editor
        self._slot = PopupSlot(popup, self._on_chosen, self._on_dismissed)
        self._skills_source = skills
        self._run = run
        self._skills: list[str] | None = None
        self._reads = 0  # the skills read for the current ``/word`` (a later one wins)
        self._dismissed = False
        editor.textChanged.connect(self._on_edit)

    def query(self) -> str | None:
        """What follows the ``/`` while the draft is one ``/word``, else None."""
        match = _COMMAND.fullmatch(self._editor.toPlainText())
        return None if match is None else match.group(1)

    def _on_edit(self) -> None:
        query = self.query()
        if query is None:
            self._skills = None  # read the folder again next time
            self._reads += 1  # and a read still on its way is for a word gone
            self._dismissed = False
            self._slot.close()
            return
        if self._dismissed:
            return
        if self._skills is None:
            self._skills = []
            self._run(self._load_skills(self._reads))
        self._show(query)

    async def _load_skills(self, read: int) -> None:
        try:
            names = await self._skills_source()
        except OSError as exc:
            log.debug("could not list skills: %s", exc)
            names = []
        if read != self._reads:
            return  # the draft stopped being a command meanwhile: a newer read decides
        self._skills = sorted(names)
        query = self.query()
        if query is not None and not self._dismissed:
            self._show(query)

    def commands(self) -> list[Suggestion]:
        """Every command, skills included (as far as they are known)."""
        from .suggestion_popup import Suggestion  # with the popup, on first use

        items = [
            Suggestion(
                "/" + COMPACT,
                self.tr("Summarise this conversation to free context"),
                COMPACT,
            )
        ]
        for name in self._skills or []:
            items.append(
                Suggestion(f"/{SKILL_PREFIX}{name}", self.tr("Skill"), SKILL_PREFIX + name)
            )
        return items

    def _show(self, query: str) -> None:
        needle = query.casefold()
        items = [c for c in self.commands() if needle in c.payload.casefold()]
        if not items:
            self._slot.close()
            return
        self._slot.get().show_items(self.tr("Commands"), items)

    def _on_chosen(self, payload: str) -> None:
        self._editor.setPlainText(f"/{payload} ")
        cursor = self._editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self._editor.setTextCursor(cursor)

    def _on_dismissed(self) -> None:
        if self.query() is not None:
            self._dismissed = True
