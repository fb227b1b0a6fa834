"""The header's ⋯ → "Reasoning effort" in the real window (offscreen): it
shows the chosen model's level, saves a choice as that model's setting (its
other settings as they are then), and the next answer is asked with it —
through the real services to the loopback server; in Chinese too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.bootstrap import Services
from mira_desktop.core.models import Reasoning
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until

from .answer_support import send_and_answer


@pytest.fixture
async def with_ollama(services: Services, loopback: LoopbackServer) -> AsyncIterator[None]:
    """A second provider, an Ollama server with a thinking model."""
    await services.providers.add_provider("box", "ollama", loopback.url)
    await services.store.save_listed_models("box", ["qwen3:8b"])
    yield


def levels(window: MainWindow) -> dict[str, Any]:
    return window.reasoning_actions.actions


def checked(window: MainWindow) -> str:
    return next(level for level, action in levels(window).items() if action.isChecked())


def shown_level(window: MainWindow) -> Reasoning | None:
    model = window.reasoning_actions._model
    return model.reasoning if model is not None else None


async def open_menu(window: MainWindow) -> None:
    window.reasoning_actions._model = None
    window.header.menu.aboutToShow.emit()
    await until(lambda: window.reasoning_actions._model is not None)


async def test_the_level_is_the_models_setting_and_reaches_the_next_answer(
    with_ollama: None, window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    assert window.header.model_picker.current_choice() == ("Local", "m1")
    await open_menu(window)
    assert checked(window) == ""  # the server's default
    assert window.reasoning_actions.menu.title() == "Reasoning effort of m1"
    assert "m1" in window.reasoning_actions.menu.menuAction().toolTip()
    assert window.header.menu.toolTipsVisible()

    levels(window)["high"].trigger()

    async def saved(provider: str, model: str, level: Reasoning | None) -> bool:
        info = await services.providers.get_model(provider, model)
        return info is not None and info.reasoning is level

    await until(lambda: shown_level(window) is Reasoning.HIGH)  # saved
    assert checked(window) == "high"
    assert await saved("Local", "m1", Reasoning.HIGH)
    await send_and_answer(window, loopback, "Think about it", "Done.", qtbot)
    assert loopback.requests[-1].json["reasoning_effort"] == "high"

    # another model has its own level
    window.header.model_picker.set_current("box", "qwen3:8b")
    await open_menu(window)
    assert checked(window) == ""
    # Settings (or the command line) change the model while the menu is open:
    # the choice is saved with what is saved then, not with what the menu read
    await services.providers.update_model_settings(
        "box", "qwen3:8b", context_window=40_960, vision=True, tier="fast",
        compaction_threshold=0.7,
    )  # fmt: skip
    levels(window)["off"].trigger()
    await until(lambda: shown_level(window) is Reasoning.OFF)
    assert checked(window) == "off"
    assert await saved("box", "qwen3:8b", Reasoning.OFF)
    info = await services.providers.get_model("box", "qwen3:8b")
    assert info is not None
    assert (info.context_window, info.vision, str(info.tier), info.compaction_threshold) == (
        40_960, True, "fast", 0.7,
    )  # fmt: skip
    assert await saved("Local", "m1", Reasoning.HIGH)  # untouched


async def test_the_menu_speaks_chinese(window: MainWindow, tmp_path: Path) -> None:
    app = QApplication.instance()
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        await open_menu(window)
        assert window.reasoning_actions.menu.title() == "m1 的推理强度"  # the model's level
        texts = [a.text() for a in window.reasoning_actions.menu.actions()]
        assert texts == ["服务器默认", "关闭", "低", "中", "高"]
        assert "回答前推理的强度" in window.reasoning_actions.menu.menuAction().toolTip()
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
