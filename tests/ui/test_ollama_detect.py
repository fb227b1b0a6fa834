"""Ollama auto-detected (PRODUCT.md §12): a window with no model server set up
looks for Ollama at once, where Ollama itself listens (``OLLAMA_HOST``, else
localhost:11434), and "Add Ollama" adds that address and picks a model. The
"Ollama" here is the loopback server answering Ollama's API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.services.ollama_host import ollama_url
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.launch import start_looking_for_ollama
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import Gate, LoopbackServer, Reply
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
        # Ollama's envconfig.Host(): scheme http, port 11434 when none is
        # named (80 / 443 after http:// / https://); quotes and spaces around
        # the value dropped; an unusable port is the default one. A server
        # listening everywhere (0.0.0.0, "", [::]) is reached on loopback.
        ("", "http://localhost:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:11500", "http://127.0.0.1:11500"),
        (":11435", "http://127.0.0.1:11435"),
        ('"0.0.0.0:11434"', "http://127.0.0.1:11434"),
        ("'1.2.3.4'", "http://1.2.3.4:11434"),
        (' " 1.2.3.4 " ', "http://1.2.3.4:11434"),
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("example.com", "http://example.com:11434"),
        ("http://myhost", "http://myhost:80"),
        ("http://gpu-box:11434/", "http://gpu-box:11434"),
        ("https://ollama.example.org", "https://ollama.example.org:443"),
        ("https://example.com/ollama", "https://example.com:443/ollama"),
        ("[::1]:11434", "http://[::1]:11434"),
        ("::1", "http://[::1]:11434"),
        ("[::]", "http://[::1]:11434"),
        ("box:notaport", "http://box:11434"),
        (":66000", "http://127.0.0.1:11434"),
        ("unix:///tmp/ollama.sock", "http://localhost:11434"),  # no TCP address: the default
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(value: str, url: str) -> None:
    assert ollama_url({"OLLAMA_HOST": value}) == url


async def test_the_first_start_screen_names_the_address_it_tries(
    qtbot: Any,
    services: Services,
    loopback: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """OLLAMA_HOST moves Ollama: "Looking for…" and "not found at…" say
    where it was looked for, in English and in Chinese."""
    gate = Gate()
    loopback.enqueue("/api/tags", Reply(chunks=[gate, b"[]"]))
    port = loopback.url.rsplit(":", 1)[1]
    monkeypatch.setenv("OLLAMA_HOST", f'"0.0.0.0:{port}"')  # as a service file quotes it
    window = MainWindow(services)
    qtbot.addWidget(window, before_close_func=lambda w: w.close_without_asking())
    window.show()
    await window.start()
    panel = window.empty_state
    panel.detect_button.click()
    await until(lambda: len(loopback.requests) == 1)
    assert panel.status_label.text() == f"Looking for Ollama at 127.0.0.1:{port}…"
    assert "11434" not in panel.status_label.text()
    gate.open()  # "[]" is no Ollama model list: not found
    await until(lambda: panel.status_label.text().startswith("Ollama was not found"))
    assert panel.status_label.text() == (
        f"Ollama was not found at 127.0.0.1:{port}. Install it from ollama.com and start it, "
        "or add another provider."
    )
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        await until(
            lambda: (
                "ollama.com" in panel.status_label.text()
                and "Ollama was" not in panel.status_label.text()
            )
        )
        assert f"127.0.0.1:{port}" in panel.status_label.text()
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
    await window.tasks.cancel_all()
    await window.thread_model.aclose()


def test_the_address_shown_is_the_url_without_its_usual_scheme() -> None:
    from mira_desktop.services.ollama_host import ollama_address

    assert ollama_address("http://localhost:11434") == "localhost:11434"
    assert ollama_address("http://[::1]:11434") == "[::1]:11434"
    assert ollama_address("https://example.com:443/ollama") == "https://example.com:443/ollama"
