"""A change waiting for approval shows all of its diff before it is approved
(PRODUCT.md §11): the card's first lines at once, "Show all N lines" for the
rest in a scrollable window, and a plain note when the card could not keep
all of the diff — real widgets, offscreen, clicked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from mira_desktop.core.agent import ApprovalState, ToolCard, ToolStatus
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.timeline.tool_cards import SHOWN_LINES, ToolCardView

DIFF = "--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1,100 @@\n" + "".join(f"+line {n}\n" for n in range(100))


def waiting(diff: str = DIFF, cut: int = 0) -> ToolCard:
    return ToolCard(
        "w1",
        "write",
        {"path": "a.txt"},
        "Create a.txt (100 lines)",
        ToolStatus.WAITING,
        ApprovalState.PENDING,
        diff=diff,
        diff_cut=cut,
    )


def shown_view(qtbot: Any, card: ToolCard) -> ToolCardView:
    view = ToolCardView()
    qtbot.addWidget(view)
    view.show()
    view.show_card(card)
    return view


def test_all_of_a_long_diff_can_be_seen_before_approving(qtbot: Any) -> None:
    view = shown_view(qtbot, waiting())
    assert view.details.isVisible() and "line 36" in view.details.text()
    assert "line 99" not in view.details.text()  # the card itself shows the first lines
    assert view.show_all.isVisible() and view.show_all.text() == "Show all 103 lines"
    assert not view.cut_note.isVisible()  # all of it was kept
    qtbot.mouseClick(view.show_all, Qt.MouseButton.LeftButton)
    assert view.full_view is not None and view.full_view.isVisible()
    assert view.full_view.text.toPlainText() == DIFF
    assert "line 99" in view.full_view.text.toPlainText()
    assert view.approve.isVisible()  # still waiting: approve after reading it all


def test_a_short_diff_needs_no_button(qtbot: Any) -> None:
    short = "".join(f"+{n}\n" for n in range(SHOWN_LINES))
    view = shown_view(qtbot, waiting(short))
    assert view.details.isVisible() and not view.show_all.isVisible()


def test_a_diff_the_card_could_not_keep_is_said_plainly_in_chinese(
    qtbot: Any, qapp: Any, tmp_path: Path
) -> None:
    view = shown_view(qtbot, waiting(cut=5_000))
    assert view.cut_note.isVisible()
    assert view.cut_note.text().startswith("The change is longer than shown: 5000 more lines")
    view._on_toggle()  # closed, the note stays
    assert not view.details.isVisible() and view.cut_note.isVisible()
    qtbot.mouseClick(view.toggle, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(view.show_all, Qt.MouseButton.LeftButton)
    assert view.full_view is not None
    assert view.full_view.cut_note.isVisible() and "5000" in view.full_view.cut_note.text()
    install_translator(qapp, "zh_CN", cache_dir=tmp_path)  # compiled from this .ts
    try:
        view.show_card(waiting(cut=7))
        assert view.cut_note.text().startswith("此更改比显示的更长：还有 7 行未保留")
        assert view.show_all.text() == "显示全部 103 行"
    finally:
        install_translator(qapp, "en", cache_dir=tmp_path)
