"""The anchor rail over a real timeline: a mark per question and per
compaction card, kept in step when messages are appended one by one (not read
again from the whole thread), and a long thread — more marks than the rail
has pixels — painted as spaced ticks."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mira_desktop.core.message_kinds import COMPACTION_KIND
from mira_desktop.core.models import Message, MessageRole
from mira_desktop.ui.timeline.anchor_rail import AnchorRail, with_anchor_rail
from mira_desktop.ui.timeline.timeline_view import TimelineView


def message(n: int, role: MessageRole, **extra: Any) -> Message:
    fields: dict[str, Any] = {"text": f"message {n}", **extra}
    stamp = f"2026-11-30T10:{n // 60 % 60:02d}:{n % 60:02d}+00:00"
    return Message(id=f"m{n:05d}", thread_id="t", role=role, created_at=stamp, **fields)


def conversation(turns: int) -> list[Message]:
    messages = []
    for n in range(turns):
        messages += [message(2 * n, MessageRole.USER), message(2 * n + 1, MessageRole.ASSISTANT)]
    return messages


def rail_over(qtbot: Any, messages: list[Message]) -> tuple[QWidget, TimelineView, AnchorRail]:
    """A shown window with the timeline and its rail (keep the window: qtbot
    holds it weakly)."""
    host = QWidget()
    qtbot.addWidget(host)
    timeline = TimelineView()
    pane, rail = with_anchor_rail(timeline, host)
    QVBoxLayout(host).addWidget(pane)
    host.resize(600, 500)
    host.show()
    qtbot.waitExposed(host)
    timeline.set_messages(messages)
    return host, timeline, rail


def test_appended_messages_add_their_marks_alone(qtbot) -> None:
    messages = conversation(3)
    card = message(100, MessageRole.ASSISTANT, data={"kind": COMPACTION_KIND})
    _host, timeline, rail = rail_over(qtbot, [*messages, card])
    assert rail.mark_ids() == ["m00000", "m00002", "m00004", "m00100"]
    asked: list[str] = []
    original = timeline.message

    def counting(message_id: str) -> Message | None:
        asked.append(message_id)
        return original(message_id)

    timeline.message = counting  # type: ignore[method-assign]  # a spy: counts, changes nothing
    timeline.upsert_message(message(200, MessageRole.USER))
    timeline.upsert_message(message(201, MessageRole.ASSISTANT))
    timeline.upsert_message(message(202, MessageRole.ASSISTANT, data={"kind": COMPACTION_KIND}))
    assert rail.mark_ids() == ["m00000", "m00002", "m00004", "m00100", "m00200", "m00202"]
    assert [m.kind for m in rail.marks()][-2:] == ["user", "compaction"]
    assert len(asked) <= 6  # the new messages, not the whole thread again
    timeline.upsert_message(message(200, MessageRole.USER, text="edited"))  # replaced: no mark
    assert rail.mark_ids()[-2:] == ["m00200", "m00202"]
    timeline.set_messages(conversation(2))  # another thread: read again
    assert rail.mark_ids() == ["m00000", "m00002"]


def test_a_rail_with_more_marks_than_pixels_shows_spaced_ticks(qtbot, themed_app) -> None:  # type: ignore[no-untyped-def]
    """2,000 questions on a rail of a few hundred pixels: the marks are
    thinned to ticks a few pixels apart, each drawn once (drawn over and
    over they piled up into a near-black bar; drawn all, they made one solid
    bar beside the scroll bar that read as a second one), and the current
    mark stands out."""
    from mira_desktop.ui.theme import apply_theme

    apply_theme(themed_app, "dark")  # where the solid bar stood out most
    _host, _timeline, rail = rail_over(qtbot, conversation(2000))
    assert len(rail.marks()) == 2000 and rail.is_active()
    image = rail.grab().toImage()
    palette = rail.palette()
    background = QColor(palette.color(palette.ColorRole.Base)).lightness()
    muted = QColor(palette.color(palette.ColorRole.PlaceholderText))
    muted.setAlpha(150)
    layers = QImage(1, 1, QImage.Format.Format_ARGB32)
    layers.fill(palette.color(palette.ColorRole.Base))
    painter = QPainter(layers)
    painter.fillRect(0, 0, 1, 1, muted)
    painter.end()
    one = QColor(layers.pixel(0, 0)).lightness()
    centre = rail.width() // 2
    rows = [QColor(image.pixel(centre, y)).lightness() for y in range(60, rail.height() - 60)]
    marked = [abs(value - one) <= 12 for value in rows]
    assert all(abs(value - one) <= 12 or abs(value - background) <= 12 for value in rows)
    assert 0.3 <= sum(marked) / len(marked) <= 0.6  # ticks with gaps, not a bar
    runs, run = [], 0
    for on in marked:
        if on:
            run += 1
        elif run:
            runs.append(run)
            run = 0
    assert runs and max(runs) <= 3  # each tick its own
    # the current mark (the turn being read) is wider, in the accent colour
    current = rail.mark_position(rail.mark_ids().index(rail.current_id()))
    accent = QColor(image.pixel(current.x() + 5, current.y()))
    assert accent.lightness() != background and abs(accent.lightness() - one) > 12


def test_the_marks_are_drawn_again_only_when_they_or_the_rail_change(qtbot) -> None:
    """The muted marks are kept in a pixmap: a repaint for another current or
    hovered mark draws only that mark over it; new marks, another size or
    another palette draw them all again (and show it)."""
    host, timeline, rail = rail_over(qtbot, conversation(300))
    base = QColor(rail.palette().color(rail.palette().ColorRole.Base))

    def grab_layer() -> tuple[QImage, int]:
        image = rail.grab().toImage()
        assert rail._layer is not None
        return image, rail._layer.cacheKey()

    image, layer = grab_layer()
    rail._current = 40  # the reader moved on: a repaint, the same marks
    image, again = grab_layer()
    assert again == layer
    at = rail.mark_position(40)
    accent = QColor(rail.palette().color(rail.palette().ColorRole.Accent))
    assert QColor(image.pixel(at.x() + 5, at.y())).hue() == accent.hue()
    timeline.upsert_message(message(900, MessageRole.USER))  # a new question
    image, appended = grab_layer()
    assert appended != layer
    last = rail.mark_position(len(rail.marks()) - 1)
    assert QColor(image.pixel(last.x(), last.y())) != base
    host.resize(600, 300)
    qtbot.waitUntil(lambda: rail.height() < 300)
    image, resized = grab_layer()
    assert resized != appended
    before = QColor(image.pixel(last.x(), rail.mark_position(0).y()))
    palette = rail.palette()
    palette.setColor(palette.ColorRole.PlaceholderText, QColor("#d03030"))
    rail.setPalette(palette)
    image, recoloured = grab_layer()
    assert recoloured != resized
    after = QColor(image.pixel(last.x(), rail.mark_position(0).y()))
    assert after != before and after.red() > after.green()
