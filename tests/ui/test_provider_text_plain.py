"""Text from elsewhere is shown as written, never as markup: a provider's 502
error page (``<html>…<h1 style="font-size:80px">Hi</h1>``) used to render as
rich text under a failed answer — a giant "Hi" that pushed the layout apart
and hid the error — and so did such a page as an image's failure, and a
title the model wrote in the sidebar's tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from mira_desktop.bootstrap import Services
from mira_desktop.core.illustration import ImageInfo
from mira_desktop.ui.sidebar.thread_row import TOOLTIP_ROLE
from mira_desktop.ui.timeline.image_card import ImageCard
from mira_desktop.ui.window.main_window import MainWindow
from tests.services.seed import make_thread
from tests.support.loopback import LoopbackServer, openai_stream
from tests.support.qt_async import until
from tests.support.replies import text_reply

CHAT = "/v1/chat/completions"
PAGE = (
    '<html><body><h1 style="font-size:80px">Hi</h1>'
    "<p>502 Bad Gateway: the upstream model server did not answer</p></body></html>"
)


def shown_as(tooltip: str) -> str:
    """What a tooltip shows: Qt renders it as rich text when it looks like markup."""
    if not GuiQt.mightBeRichText(tooltip):
        return tooltip
    document = QTextDocument()
    document.setHtml(tooltip)
    return document.toPlainText()


def send(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.send_requested.emit(window.composer.text())


async def test_a_providers_error_page_is_shown_as_its_words(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, openai_stream(["first"]))
    send(window, "Question one")
    await until(lambda: not window.chat.is_running(window.presenter.key) and not window.presenter.is_draft)  # fmt: skip
    loopback.enqueue(CHAT, text_reply(502, PAGE, {"content-type": "text/html"}))
    send(window, "Question two")
    await until(lambda: len(window.timeline.message_ids()) == 4 and not window.chat.is_running(window.presenter.key))  # fmt: skip
    widget = window.timeline.message_widget(window.timeline.message_ids()[-1])
    assert widget is not None
    await until(lambda: widget.findChild(QLabel, "messageError") is not None)
    error = widget.findChild(QLabel, "messageError")
    assert error.textFormat() == Qt.TextFormat.PlainText
    # a web page is told by its title, or (as this one has none) its status
    assert "HTTP 502 Bad Gateway" in error.text() and "<h1" not in error.text()
    # as words, a few lines high, not an 80 px heading
    assert error.heightForWidth(600) < 4 * error.fontMetrics().lineSpacing() + 8


def test_an_images_error_page_is_shown_as_its_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    card = ImageCard(None)
    qtbot.addWidget(card)
    card.show_info(ImageInfo("failed", error={"code": "provider", "message": PAGE}))
    assert card.label.textFormat() == Qt.TextFormat.PlainText
    assert card.label.text().endswith(PAGE)
    assert card.label.heightForWidth(600) < 4 * card.label.fontMetrics().lineSpacing() + 8


async def test_a_title_the_model_wrote_is_its_tooltip_as_written(
    window: MainWindow, services: Services
) -> None:
    title = '<h1 style="font-size:80px">Hi</h1> & <b>bold</b>'
    await make_thread(services, title, ["hello"])
    window.thread_model.refresh()
    model = window.sidebar.list_view.model()

    def tooltip() -> str | None:
        for row in range(model.rowCount()):
            value = model.index(row, 0).data(TOOLTIP_ROLE)
            if value:
                return str(value)
        return None

    await until(lambda: tooltip() is not None)
    assert shown_as(tooltip() or "") == title
    window.header.title_label.set_full_text(title)  # the open thread's title, above it
    assert shown_as(window.header.title_label.toolTip()) == title
