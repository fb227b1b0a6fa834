"""Settings dialog: providers (add, test connection ok/failing, fetch, remove), model
settings and appearance — against an in-test fake service, and once against the real
ProviderService talking to the loopback server."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from mira_desktop.bootstrap import build_services
from mira_desktop.core.errors import AuthenticationError, ConfigError, NetworkError
from mira_desktop.core.models import ModelInfo, ModelTier, ProviderConfig, ProviderKind, Reasoning
from mira_desktop.ui.dialogs import SettingsDialog
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.support.replies import openai_json_error, openai_models


class FakeProviderService:
    """Same async API as services.providers.ProviderService, in memory."""

    keyring_description = "test keyring"
    secrets_file = None

    def __init__(self) -> None:
        self.providers: dict[str, ProviderConfig] = {}
        self.models: list[ModelInfo] = []
        self.calls: list[tuple[Any, ...]] = []
        self.test_result: list[ModelInfo] | Exception = []
        self.delay = 0.01

    async def list_providers(self) -> list[ProviderConfig]:
        await asyncio.sleep(0)
        return list(self.providers.values())

    async def add_provider(
        self, name: str, kind: str, base_url: str, api_key: str | None = None
    ) -> ProviderConfig:
        self.calls.append(("add", name, kind, base_url, api_key))
        await asyncio.sleep(self.delay)
        if not name:
            raise ConfigError("A provider needs a name.")
        config = ProviderConfig(f"id-{name}", name, ProviderKind(kind), base_url, bool(api_key))
        self.providers[name] = config
        return config

    async def update_provider(self, name: str, **fields: Any) -> ProviderConfig:
        self.calls.append(("update", name, fields))
        await asyncio.sleep(self.delay)
        old = self.providers.pop(name)
        new = replace(
            old,
            name=fields.get("new_name") or old.name,
            kind=ProviderKind(fields.get("kind") or old.kind),
            base_url=fields.get("base_url") or old.base_url,
            has_key=old.has_key or bool(fields.get("api_key")),
        )
        self.providers[new.name] = new
        return new

    async def remove_provider(self, name: str) -> None:
        self.calls.append(("remove", name))
        await asyncio.sleep(self.delay)
        del self.providers[name]

    async def test_connection(self, name: str) -> list[ModelInfo]:
        self.calls.append(("test", name))
        await asyncio.sleep(self.delay)
        if isinstance(self.test_result, Exception):
            raise self.test_result
        return self.test_result

    async def fetch_models(self, name: str) -> list[ModelInfo]:
        self.calls.append(("fetch", name))
        await asyncio.sleep(self.delay)
        return [m for m in self.models if m.provider_name == name]

    async def list_models(self, name: str | None = None) -> list[ModelInfo]:
        await asyncio.sleep(0)
        return [m for m in self.models if name is None or m.provider_name == name]

    async def update_model_settings(
        self, provider_name: str, model: str, **settings: Any
    ) -> ModelInfo:
        self.calls.append(("model", provider_name, model, settings))
        await asyncio.sleep(self.delay)
        for i, info in enumerate(self.models):
            if (info.provider_name, info.name) == (provider_name, model):
                tier, level = settings["tier"], settings.get("reasoning")
                self.models[i] = replace(
                    info,
                    **{
                        **settings,
                        "tier": ModelTier(tier) if tier else None,
                        "reasoning": Reasoning(level) if level else None,
                    },
                )
                return self.models[i]
        raise AssertionError("unknown model")

    async def detect_ollama(self, base_url: str | None = None) -> bool:
        return False


class FakeSettingsService:
    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self.values = dict(values or {})

    async def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    async def set(self, key: str, value: Any) -> None:
        await asyncio.sleep(0)
        self.values[key] = value


async def open_dialog(qtbot, providers: Any, settings: Any | None = None) -> SettingsDialog:
    dialog = SettingsDialog(providers, settings or FakeSettingsService())
    qtbot.addWidget(dialog)
    await dialog.load()
    dialog.resize(820, 560)
    dialog.show()
    return dialog


def click(qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


async def test_add_provider_with_default_url(qtbot) -> None:
    service = FakeProviderService()
    service.models = [ModelInfo(name="m1", provider_name="Local")]
    dialog = await open_dialog(qtbot, service)
    tab = dialog.providers_tab
    changed: list[bool] = []
    dialog.providers_changed.connect(lambda: changed.append(True))

    assert tab.empty_hint.isVisible()
    click(qtbot, tab.add_button)
    qtbot.keyClicks(tab.form.name_edit, "Local")
    assert tab.form.url_edit.placeholderText() == "http://localhost:11434/v1"
    assert "http://localhost:1234/v1" in tab.form.url_hint.text()  # LM Studio mentioned
    assert tab.form.key_edit.echoMode() == tab.form.key_edit.EchoMode.Password
    qtbot.keyClicks(tab.form.key_edit, "sk-test")
    click(qtbot, tab.save_button)
    await until(lambda: tab.status.text() == "Fetched 1 model.")

    # saved, then its models fetched for the model picker
    assert service.calls == [
        ("add", "Local", "openai", "http://localhost:11434/v1", "sk-test"),
        ("fetch", "Local"),
    ]
    assert tab.provider_list.count() == 1
    assert tab.provider_list.currentItem().text() == "Local"
    assert tab.form.key_edit.text() == ""  # never shown again
    assert "Saved" in tab.form.key_edit.placeholderText()
    assert changed
    assert not tab.empty_hint.isVisible()


async def test_kind_changes_default_url(qtbot) -> None:
    dialog = await open_dialog(qtbot, FakeProviderService())
    form = dialog.providers_tab.form
    for kind, url in (
        ("ollama", "http://localhost:11434"),
        ("anthropic", "https://api.anthropic.com"),
        ("openai", "http://localhost:11434/v1"),
    ):
        row = form.kind_combo.findData(kind)
        form.kind_combo.setCurrentIndex(row)
        form.kind_combo.activated.emit(row)
        assert form.url_edit.placeholderText() == url
        assert form.values().base_url == url


async def test_test_connection_success_and_busy_state(qtbot) -> None:
    service = FakeProviderService()
    service.providers["Ollama"] = ProviderConfig("p1", "Ollama", ProviderKind.OLLAMA, "http://x")
    service.test_result = [ModelInfo(name=f"m{i}", provider_name="Ollama") for i in range(3)]
    service.delay = 0.2
    dialog = await open_dialog(qtbot, service)
    tab = dialog.providers_tab
    assert tab.form.original().name == "Ollama"

    click(qtbot, tab.test_button)
    await until(lambda: tab.status.status() == "busy")
    assert not tab.test_button.isEnabled()
    assert not tab.save_button.isEnabled()
    await until(lambda: tab.status.status() == "ok")
    assert tab.status.text() == "Connected — 3 models available."
    assert tab.test_button.isEnabled()
    assert service.calls == [("test", "Ollama")]  # unchanged form: no save first


async def test_test_connection_failure_shows_message_and_hint(qtbot) -> None:
    service = FakeProviderService()
    service.providers["Cloud"] = ProviderConfig("p1", "Cloud", ProviderKind.OPENAI, "http://x")
    service.test_result = NetworkError("Cannot connect to http://x: connection refused")
    dialog = await open_dialog(qtbot, service)
    tab = dialog.providers_tab
    click(qtbot, tab.test_button)
    await until(lambda: tab.status.status() == "error")
    assert "connection refused" in tab.status.text()
    assert "Check that the server is running" in tab.status.text()
    assert tab.status.isVisible()

    service.test_result = AuthenticationError("401 Unauthorized", hint="Paste the key again.")
    click(qtbot, tab.test_button)
    await until(lambda: "401" in tab.status.text())
    assert "Paste the key again." in tab.status.text()


async def test_test_connection_saves_edits_first(qtbot) -> None:
    service = FakeProviderService()
    service.providers["Old"] = ProviderConfig("p1", "Old", ProviderKind.OPENAI, "http://x/v1")
    service.test_result = [ModelInfo(name="m", provider_name="New")]
    dialog = await open_dialog(qtbot, service)
    tab = dialog.providers_tab
    tab.form.name_edit.clear()
    qtbot.keyClicks(tab.form.name_edit, "New")
    click(qtbot, tab.test_button)
    await until(lambda: tab.status.status() == "ok" and "Connected" in tab.status.text())
    assert [c[0] for c in service.calls] == ["update", "test"]
    assert service.calls[0][2]["new_name"] == "New"
    assert service.calls[0][2]["api_key"] is None  # empty key field keeps the stored key
    assert service.calls[1] == ("test", "New")


async def test_save_error_is_inline(qtbot) -> None:
    service = FakeProviderService()
    dialog = await open_dialog(qtbot, service)
    tab = dialog.providers_tab
    click(qtbot, tab.save_button)  # no name
    await until(lambda: tab.status.status() == "error")
    assert tab.status.text() == "A provider needs a name."


async def test_remove_asks_inline_then_removes(qtbot) -> None:
    service = FakeProviderService()
    service.providers["A"] = ProviderConfig("p1", "A", ProviderKind.OPENAI, "http://a/v1")
    dialog = await open_dialog(qtbot, service)
    tab = dialog.providers_tab
    click(qtbot, tab.remove_button)
    assert tab.confirm_bar.isVisible()
    assert service.calls == []
    click(qtbot, tab.confirm_remove_button)
    await until(lambda: tab.status.status() == "ok")
    assert service.calls == [("remove", "A")]
    assert tab.provider_list.count() == 0
    assert tab.form.is_new()


async def test_fetch_models_refreshes_models_tab(qtbot) -> None:
    service = FakeProviderService()
    service.providers["L"] = ProviderConfig("p1", "L", ProviderKind.OLLAMA, "http://l")
    dialog = await open_dialog(qtbot, service)
    assert dialog.models_tab.model_list.count() == 0
    service.models = [ModelInfo(name="qwen3:8b", provider_name="L")]
    click(qtbot, dialog.providers_tab.fetch_button)
    await until(lambda: dialog.models_tab.model_list.count() == 1)
    assert dialog.providers_tab.status.text() == "Fetched 1 model."


async def test_model_settings_are_saved(qtbot) -> None:
    service = FakeProviderService()
    service.models = [
        ModelInfo(name="llama3", provider_name="L"),
        ModelInfo(name="qwen3", provider_name="L", context_window=32768, vision=True),
    ]
    dialog = await open_dialog(qtbot, service)
    tab = dialog.models_tab
    dialog.show_tab("models")
    tab.select_model("L", "qwen3")
    assert tab.window_spin.value() == 32768
    assert tab.vision_check.isChecked()
    tab.window_spin.setValue(65536)
    tab.tier_combo.setCurrentIndex(tab.tier_combo.findData("reasoning"))
    tab.threshold_edit.setText("0.8")
    click(qtbot, tab.save_button)
    await until(lambda: tab.status.status() == "ok")
    assert service.calls[-1] == (
        "model",
        "L",
        "qwen3",
        {
            "context_window": 65536,
            "vision": True,
            "tier": "reasoning",
            "compaction_threshold": 0.8,
            "reasoning": None,
        },
    )

    tab.threshold_edit.setText("")
    tab.status.clear_status()
    click(qtbot, tab.save_button)
    await until(lambda: tab.status.status() == "ok")
    assert service.calls[-1][3]["compaction_threshold"] is None

    qtbot.keyClicks(tab.filter_edit, "llama")
    assert [tab.model_list.item(r).isHidden() for r in range(2)] == [False, True]


async def test_appearance_saves_and_announces(qtbot) -> None:
    settings = FakeSettingsService({"ui.theme": "dark", "ui.language": "zh_CN"})
    dialog = await open_dialog(qtbot, FakeProviderService(), settings)
    tab = dialog.appearance_tab
    assert tab.theme_combo.currentData() == "dark"
    assert tab.language_combo.currentData() == "zh_CN"
    assert tab.thinking_combo.currentData() == "expanded"  # nothing stored: the default
    seen: list[tuple[str, str]] = []
    dialog.theme_changed.connect(lambda v: seen.append(("theme", v)))
    dialog.language_changed.connect(lambda v: seen.append(("language", v)))
    dialog.thinking_display_changed.connect(lambda v: seen.append(("thinking", v)))
    for combo, value in (
        (tab.theme_combo, "light"),
        (tab.language_combo, "en"),
        (tab.thinking_combo, "hidden"),
    ):
        row = combo.findData(value)
        combo.setCurrentIndex(row)
        combo.activated.emit(row)
    await until(lambda: len(seen) == 3)
    assert seen == [("theme", "light"), ("language", "en"), ("thinking", "hidden")]
    assert settings.values == {
        "ui.theme": "light",
        "ui.language": "en",
        "ui.thinking_display": "hidden",
    }


async def test_real_provider_service_over_loopback(
    qtbot, data_dir: Path, loopback: LoopbackServer
) -> None:
    services = build_services(data_dir)
    try:
        dialog = await open_dialog(qtbot, services.providers, services.settings)
        tab = dialog.providers_tab
        qtbot.keyClicks(tab.form.name_edit, "Loop")
        qtbot.keyClicks(tab.form.url_edit, loopback.url + "/v1")
        qtbot.keyClicks(tab.form.key_edit, "sk-loop")
        loopback.enqueue("/v1/models", openai_models(["alpha", "beta"]))
        click(qtbot, tab.test_button)
        await until(lambda: "Connected" in tab.status.text())
        assert tab.status.text() == "Connected — 2 models available."
        [request] = [r for r in loopback.requests if r.path == "/v1/models"]
        assert request.headers["authorization"] == "Bearer sk-loop"
        await until(lambda: dialog.models_tab.model_list.count() == 2)

        loopback.enqueue("/v1/models", openai_json_error(401, "Incorrect API key provided"))
        click(qtbot, tab.test_button)
        await until(lambda: tab.status.status() == "error")
        assert "Incorrect API key provided" in tab.status.text()
        assert [p.name for p in await services.providers.list_providers()] == ["Loop"]
    finally:
        await services.aclose()


async def test_keys_kept_in_a_file_are_said_in_the_interface_language(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Without a system keyring the form named the file in English inside a
    Chinese sentence ("密钥保存在 file … (readable only by you…) 中")."""
    from PySide6.QtWidgets import QApplication

    from mira_desktop.bootstrap import build_services
    from mira_desktop.storage.secrets import SecretStore
    from mira_desktop.ui.i18n import install_translator

    data_dir = tmp_path / "data"
    services = build_services(data_dir, secrets=SecretStore(data_dir, use_keyring=False))
    app = QApplication.instance()
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        dialog = await open_dialog(qtbot, services.providers)
        hint = dialog.providers_tab.form.key_hint.text()
        assert f"文件 {data_dir / 'secrets.json'}（仅你可读；未找到系统密钥环）" in hint
        assert "readable" not in hint and "file " not in hint
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
        await services.aclose()


async def test_reasoning_level_per_model_with_what_each_server_is_told(
    qtbot, data_dir: Path, tmp_path: Path
) -> None:
    """Settings → Models → Reasoning, with the real service: the level is saved
    with the model's other settings, and the hint says what each kind of
    server is sent — in Chinese too."""
    from PySide6.QtWidgets import QApplication

    from mira_desktop.ui.i18n import install_translator

    services = build_services(data_dir)
    app = QApplication.instance()
    try:
        await services.providers.add_provider("claude", "anthropic", "http://127.0.0.1:9", "k")
        await services.providers.add_provider("lm", "openai", "http://127.0.0.1:9/v1")
        for provider, model in (("claude", "claude-sonnet"), ("lm", "gpt-oss-20b")):
            await services.providers.update_model_settings(
                provider, model, context_window=None, vision=False, tier=None,
                compaction_threshold=None,
            )  # fmt: skip
        dialog = await open_dialog(qtbot, services.providers, services.settings)
        tab = dialog.models_tab
        dialog.show_tab("models")
        await until(lambda: tab.model_list.count() == 2)
        combo = tab.reasoning_combo

        tab.select_model("lm", "gpt-oss-20b")
        assert combo.currentData() == "" and combo.currentText() == "Server's default"
        assert "reasoning_effort" in tab.reasoning_hint.text()
        assert "off is sent as low" in tab.reasoning_hint.text()

        tab.select_model("claude", "claude-sonnet")
        assert "16,384" in tab.reasoning_hint.text()
        combo.setCurrentIndex(combo.findData("high"))
        click(qtbot, tab.save_button)
        await until(lambda: tab.status.status() == "ok")
        saved = await services.providers.get_model("claude", "claude-sonnet")
        assert saved is not None and saved.reasoning is Reasoning.HIGH
        tab.select_model("lm", "gpt-oss-20b")
        tab.select_model("claude", "claude-sonnet")
        assert combo.currentData() == "high"

        install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
        assert combo.currentText() == "高"
        assert "思考" in tab.reasoning_hint.text() and "Extended" not in tab.reasoning_hint.text()
        assert tab._labels[4].text() == "推理强度"
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
        await services.aclose()
