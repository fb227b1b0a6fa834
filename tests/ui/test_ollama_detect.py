"""Ollama auto-detected (PRODUCT.md §12): a window with no model server set up
looks for Ollama at once, where Ollama itself listens (``OLLAMA_HOST``, else
localhost:11434), and "Add Ollama" adds that address and picks a model. The
"Ollama" here is the loopback server answering Ollama's API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.services.ollama_host import ollama_url
from mira_desktop.ui.launch import start_looking_for_ollama
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.replies import ollama_tags
from tests.ui.test_attachments_ui import until


@pytest.fixture
async def services(data_dir: Path) -> AsyncIterator[Services]:
    """A first start: no provider at all."""
    built = build_services(data_dir)
    yield built
    await built.aclose()


async def test_a_first_start_finds_ollama_without_a_click_and_adds_it(
    qtbot: Any, services: Services, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", loopback.url.removeprefix("http://"))
    loopback.enqueue("/api/tags", ollama_tags(["qwen3:8b"]))  # the probe
    window = MainWindow(services)
    qtbot.addWidget(window, before_close_func=lambda w: w.close_without_asking())
    window.show()
    await window.start()
    start_looking_for_ollama(window)  # as the launch does once the window shows
    window.look_for_ollama()  # two looks, one probe: once per launch
    panel = window.empty_state
    await until(lambda: panel.add_ollama_button.isVisible())
    assert window.stack.currentWidget() is panel
    assert panel.status_label.text() == "Ollama is running on this computer."
    assert [r.path for r in loopback.requests] == ["/api/tags"]
    loopback.enqueue("/api/tags", ollama_tags(["qwen3:8b"]))  # the model list
    panel.add_ollama_button.click()
    await until(lambda: window.presenter.choice == ("Ollama", "qwen3:8b"))
    [provider] = await services.providers.list_providers()
    assert (provider.name, provider.kind, provider.base_url) == ("Ollama", "ollama", loopback.url)
    await window.tasks.cancel_all()
    await window.thread_model.aclose()


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("", "http://localhost:11434"),
        ("0.0.0.0", "http://localhost:11434"),
        ("0.0.0.0:11500", "http://localhost:11500"),
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://gpu-box:11434/", "http://gpu-box:11434"),
        ("https://ollama.example.org", "https://ollama.example.org:443"),
        ("[::1]:11434", "http://[::1]:11434"),
        ("box:notaport", "http://localhost:11434"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(value: str, url: str) -> None:
    assert ollama_url({"OLLAMA_HOST": value}) == url
