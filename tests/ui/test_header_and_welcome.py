"""Header (title, model picker, menu) and the two welcome panels."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from mira_desktop.core.models import ModelInfo
from mira_desktop.ui.header import HeaderWidget, ModelPickerWidget
from mira_desktop.ui.welcome import EmptyStateWidget, WelcomeView

MODELS = [
    ModelInfo(name="qwen3:8b", provider_name="Ollama"),
    ModelInfo(name="llama3.2", provider_name="Ollama"),
    ModelInfo(name="claude-sonnet", provider_name="Anthropic", display_name="Claude Sonnet"),
]


def picker_texts(picker: ModelPickerWidget) -> list[str]:
    return [picker.itemText(i) for i in range(picker.count())]


def test_model_picker_lists_and_emits_only_user_choices(qtbot) -> None:
    picker = ModelPickerWidget()
    qtbot.addWidget(picker)
    chosen: list[tuple[str, str]] = []
    picker.model_chosen.connect(lambda p, m: chosen.append((p, m)))

    picker.set_models(MODELS)
    assert picker_texts(picker) == [
        "Choose a model",
        "Ollama · qwen3:8b",
        "Ollama · llama3.2",
        "Anthropic · Claude Sonnet",
    ]
    picker.set_current("Ollama", "llama3.2")
    assert picker.currentText() == "Ollama · llama3.2"
    assert chosen == []  # programmatic: silent

    picker.activated.emit(picker.findText("Anthropic · Claude Sonnet"))
    assert chosen == [("Anthropic", "claude-sonnet")]
    assert picker.current_choice() == ("Anthropic", "claude-sonnet")


def test_model_picker_keeps_an_unconfigured_current_model_visible(qtbot) -> None:
    picker = ModelPickerWidget()
    qtbot.addWidget(picker)
    picker.set_models(MODELS)
    picker.set_current("Gone", "old-model")
    assert picker.currentText() == "Gone · old-model (unavailable)"
    picker.set_models([])
    assert picker.currentText() == "Gone · old-model (unavailable)"


def test_a_long_model_name_does_not_take_the_header(qtbot) -> None:
    """The picker is as wide as ~24 characters, not as its longest name (it
    took ~490 px and left the thread's title ~120)."""
    picker = ModelPickerWidget()
    qtbot.addWidget(picker)
    long_name = "qwen2.5-coder:32b-instruct-q8_0-with-a-very-long-model-name"
    picker.set_models([*MODELS, ModelInfo(name=long_name, provider_name="Ollama")])
    picker.set_current("Ollama", "llama3.2")
    width = picker.sizeHint().width()
    assert width < picker.fontMetrics().horizontalAdvance(f"Ollama · {long_name}")
    assert width >= picker.fontMetrics().horizontalAdvance("Ollama · llama3.2")


def test_model_picker_without_models_explains(qtbot) -> None:
    picker = ModelPickerWidget()
    qtbot.addWidget(picker)
    picker.set_models([])
    assert not picker.isEnabled()
    assert "add a provider" in picker.currentText()


def test_header_title_elides_and_defaults(qtbot) -> None:
    header = HeaderWidget()
    qtbot.addWidget(header)
    header.resize(500, 48)
    header.show()
    assert header.title_label.text() == "New chat"
    long_title = "A very long conversation title " * 10
    header.set_title(long_title)
    assert header.title() == long_title
    assert header.title_label.text().endswith("…")
    tooltip = header.title_label.toolTip()  # whole, wrapped (rich text: Qt wraps it)
    assert tooltip.startswith("<p>") and long_title.strip() in tooltip
    header.menu.addAction("Export…")
    assert header.menu_button.menu() is header.menu
    seen: list[tuple[str, str]] = []
    header.model_chosen.connect(lambda p, m: seen.append((p, m)))
    header.set_models(MODELS)
    header.model_picker.activated.emit(1)
    assert seen == [("Ollama", "qwen3:8b")]


def test_welcome_view_chips_fill_prompts(qtbot) -> None:
    view = WelcomeView()
    qtbot.addWidget(view)
    prompts: list[str] = []
    view.prompt_chosen.connect(prompts.append)
    assert len(view.chips) == 4
    qtbot.mouseClick(view.chips[2], Qt.MouseButton.LeftButton)
    assert prompts == [view.examples()[2][1]]
    assert "email" in prompts[0]


async def test_empty_state_detects_ollama_and_offers_to_add(qtbot) -> None:
    calls: list[int] = []

    async def detect(_url: str) -> bool:
        calls.append(1)
        await asyncio.sleep(0.05)
        return True

    panel = EmptyStateWidget(detect)
    qtbot.addWidget(panel)
    panel.show()
    requested: list[str] = []
    panel.detect_requested.connect(lambda: requested.append("detect"))
    panel.add_ollama_requested.connect(lambda: requested.append("add-ollama"))
    panel.add_provider_requested.connect(lambda: requested.append("add"))
    assert not panel.add_ollama_button.isVisible()

    qtbot.mouseClick(panel.detect_button, Qt.MouseButton.LeftButton)
    await asyncio.sleep(0.01)
    assert not panel.detect_button.isEnabled()  # busy
    assert "Looking for Ollama" in panel.status_label.text()
    for _ in range(300):
        if panel.add_ollama_button.isVisible():
            break
        await asyncio.sleep(0.01)
    assert panel.status_label.text() == "Ollama is running on this computer."
    assert panel.detect_button.isEnabled()
    qtbot.mouseClick(panel.add_ollama_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    assert requested == ["detect", "add-ollama", "add"]
    assert calls == [1]


async def test_empty_state_reports_missing_and_failing_probe(qtbot) -> None:
    async def missing(_url: str) -> bool:
        return False

    async def broken(_url: str) -> bool:
        raise OSError("permission denied")

    panel = EmptyStateWidget(missing)
    qtbot.addWidget(panel)
    assert await panel.run_detection() is False
    assert "ollama.com" in panel.status_label.text()
    assert not panel.add_ollama_button.isVisibleTo(panel)

    panel = EmptyStateWidget(broken)
    qtbot.addWidget(panel)
    assert await panel.run_detection() is False
    assert panel.status_label.text() == "Could not check for Ollama: permission denied"
