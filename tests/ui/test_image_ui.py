"""Illustrated answers in the real window (PRODUCT.md §10): the header menu's
switch with a role bound to a new chat, the answer's card (drawing, the
picture scaled off the Qt thread in a box sized beforehand, Open and Save…,
an error with Try again), "Illustrate" in an answer's menu, and the notice
when the switch cannot work. Pictures come from the loopback server."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtWidgets import QFileDialog, QMenu

from mira_desktop.bootstrap import Services
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.image_card import ImageCard
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error
from tests.support.opened_urls import opened_files
from tests.ui.answer_support import send_and_answer, until_made
from tests.ui.test_attachments_ui import until

IMAGES = "/v1/images/generations"


def png(colour: str, size: tuple[int, int] = (800, 600)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def image_reply(data: bytes) -> Any:
    return json_reply({"data": [{"b64_json": base64.b64encode(data).decode()}]})


async def send(window: MainWindow, loopback: LoopbackServer, text: str, qtbot: Any) -> str:
    answer = "The knight lifts his lantern; the cave glitters."
    return await send_and_answer(window, loopback, text, answer, qtbot)


def card_of(window: MainWindow, message_id: str) -> ImageCard | None:
    widget = window.timeline.message_widget(message_id)
    assert isinstance(widget, AssistantMessageWidget)
    return widget.image_card


async def until_image(window: MainWindow, message_id: str, status: str) -> None:
    await until_made(window, message_id, "image", status)


@pytest.fixture
async def storyteller(services: Services) -> str:
    role = await services.roles.create("Storyteller", scenario="A quest in the mountains")
    await services.settings.set("media.image_model", {"provider": "Local", "model": "pic-1"})
    return role.id


async def test_a_new_chat_with_a_role_and_the_switch_on_shows_its_pictures(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    storyteller: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await window.context_actions.reload_roles()
    window.context_actions.choose_role(storyteller)
    action = window.image_actions.switch_action
    assert action in window.header.menu.actions() and not action.isChecked()
    action.trigger()
    assert window.presenter.draft_image and window.notice_bar.text() == ""
    picture = png("navy")
    loopback.enqueue(IMAGES, image_reply(picture))
    answer_id = await send(window, loopback, "What do we see?", qtbot)
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.image_enabled and thread.role_id == storyteller
    await until_image(window, answer_id, "ready")
    card = card_of(window, answer_id)
    assert card is not None and card.isVisible()
    # the box was sized from the stored size (800×600 → 360×270) before the picture came
    assert (card.picture.width(), card.picture.height()) == (360, 270)
    await until(card.has_picture)
    pixmap = card.picture.pixmap()
    assert (pixmap.width(), pixmap.height()) == (360, 270)
    assert card.label.text() == "Image · 800×600 · pic-1"
    assert card.open_button.isVisible() and card.save_button.isVisible()
    widget = window.timeline.message_widget(answer_id)
    assert widget is not None and card.geometry().bottom() < widget.height()

    with opened_files() as opened:
        card.open_button.click()
        await until(lambda: opened != [])
    shown = Path(opened[0].toLocalFile())
    assert shown.suffix == ".png" and shown.read_bytes() == picture
    target = tmp_path / "kept.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    card.save_button.click()
    await until(target.exists)
    assert target.read_bytes() == picture


async def test_a_refusal_shows_on_the_card_and_try_again_draws_it(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any, storyteller: str
) -> None:
    answer_id = await send(window, loopback, "Hello", qtbot)
    loopback.enqueue(IMAGES, openai_json_error(400, "Rejected by the safety system"))
    menu = QMenu(window)
    window.timeline.message_menu_requested.emit(answer_id, menu)
    illustrate = next(a for a in menu.actions() if a.objectName() == "message:illustrate")
    assert illustrate.text() == "Illustrate"
    illustrate.trigger()
    await until_image(window, answer_id, "failed")
    card = card_of(window, answer_id)
    assert card is not None and card.retry_button.isVisible() and not card.picture.isVisible()
    assert card.label.text().startswith("No image: ") and "safety system" in card.label.text()
    assert window.timeline.message(answer_id).text.startswith("The knight")  # type: ignore[union-attr]
    loopback.enqueue(IMAGES, image_reply(png("green", (300, 500))))
    card.retry_button.click()
    await until_image(window, answer_id, "ready")
    assert (card.picture.width(), card.picture.height()) == (300, 500)
    await until(card.has_picture)
    # a redraw that fails keeps the picture, says why beside it and offers Try again
    loopback.enqueue(IMAGES, openai_json_error(400, "Rejected by the safety system"))
    window.image_actions.make_now(answer_id)
    await until(lambda: "Drawing it again failed" in card.label.text())
    assert card.label.text().startswith("Image · 300×500 · pic-1\n")
    assert card.picture.isVisible() and card.has_picture()
    assert card.open_button.isVisible() and card.retry_button.isVisible()
    info = card.info
    assert info.status == "ready" and await services.media.ref_count(info.sha256) == 1


async def test_the_switch_says_what_it_still_needs(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    window.image_actions.switch_action.trigger()
    await until(lambda: "with a role" in window.notice_bar.text())
    answer_id = await send(window, loopback, "Hello", qtbot)
    assert [r for r in loopback.requests if r.path == IMAGES] == []
    assert card_of(window, answer_id) is None


def test_rows_are_estimated_with_their_picture_and_audio_bar() -> None:
    """A long thread's rows are placed by estimate before they are measured: a
    picture of 800×600 (shown 360×270) must not be a surprise when scrolled to."""
    from mira_desktop.core.models import Message, MessageRole
    from mira_desktop.ui.timeline.message_state import MessageState, estimate_height

    def answer(data: dict[str, object] | None) -> MessageState:
        message = Message("a", "t", MessageRole.ASSISTANT, "Some answer.", "2026-01-01", data=data)
        return MessageState.from_message(message)

    plain = estimate_height(answer(None), 700, 20, 7.0)
    ready = {"status": "ready", "width": 800, "height": 600}
    pictured = estimate_height(answer({"image": ready}), 700, 20, 7.0)
    failed = estimate_height(answer({"image": {"status": "failed"}}), 700, 20, 7.0)
    spoken = estimate_height(answer({"speech": {"status": "ready"}}), 700, 20, 7.0)
    assert pictured - plain >= 270 and 0 < failed - plain < 60 and 0 < spoken - plain < 60
