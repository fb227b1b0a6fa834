"""Stop pressed in the real MainWindow while the send is still being prepared
(its knowledge base reranks the passages over the network, before any answer
exists): the preparation is cancelled and the turn ends stopped. The loopback
model server and a real data folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from mira_desktop.bootstrap import Services
from mira_desktop.core.models import MessageStatus
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.documents import make_pdf
from tests.support.loopback import Hang, LoopbackServer, openai_stream, raw_stream
from tests.support.qt_async import until

CHAT = "/v1/chat/completions"
RERANK = "/v1/rerank"


def type_and_send(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.send_requested.emit(window.composer.text())


async def bind_reranked_base(services: Services, thread_id: str, folder: Path) -> None:
    folder.mkdir()
    (folder / "orchard.pdf").write_bytes(make_pdf([["The orchard grows 40 apple trees."]]))
    (folder / "pears.md").write_text("# Pears\n\nThere are 12 pear trees by the river.\n")
    kb = await services.knowledge.create("Farm")
    await services.knowledge.add(kb.id, [folder])
    await services.knowledge.configure_rerank(kb.id, "Local", "rerank-test")
    await services.knowledge.bind(thread_id, kb.id)


async def test_stop_while_the_passages_are_reranked_ends_the_turn(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    loopback.enqueue(CHAT, openai_stream(["first answer"]))
    type_and_send(window, "first question")
    await until(
        lambda: not window.presenter.is_draft and not window.chat.is_running(window.presenter.key)
    )
    thread_id = window.presenter.key
    await bind_reranked_base(services, thread_id, tmp_path / "farm")
    loopback.enqueue(RERANK, raw_stream([Hang()], content_type="application/json"))
    type_and_send(window, "How many apple trees?")
    await until(lambda: any(r.path == RERANK for r in loopback.requests))
    assert window.composer.is_running()  # the button says Stop

    qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)

    # before, the click did nothing: the spinner and Stop stayed while the
    # passages were reranked, then the answer streamed in full
    await until(lambda: not window.chat.is_running(thread_id))
    assert not window.composer.is_running()
    assert loopback.wait_for_disconnect(timeout=5)  # the rerank request was dropped
    # the model was not asked (the window's automatic title may have asked it something)
    assert not any(b"apple trees" in r.body for r in loopback.requests if r.path == CHAT)
    messages = await services.threads.get_active_messages(thread_id)
    assert [(str(m.role), m.status, m.text) for m in messages[-2:]] == [
        ("user", MessageStatus.COMPLETE, "How many apple trees?"),
        ("assistant", MessageStatus.STOPPED, ""),
    ]
