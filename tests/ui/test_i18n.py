"""Translations: the pure-Python .ts → .qm compiler produces files QTranslator reads,
install_translator finds or builds them (fresh checkout: into the cache folder) and
widgets switch language live."""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDateTime, QLibraryInfo, QLocale, Qt, QTranslator
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from mira_desktop.core.errors import StorageError
from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.paths import resource_path
from mira_desktop.ui.composer import ComposerWidget
from mira_desktop.ui.i18n import (
    find_or_build_qm,
    formats_locale,
    install_translator,
    resolve_language,
)
from mira_desktop.ui.timeline.meta_format import meta_text, status_texts
from mira_desktop.ui.ts_compiler import compile_ts, elf_hash, read_ts

TS_FILE = resource_path("i18n", "mira_zh_CN.ts")
SAMPLE_TS = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>Demo</name>
    <message><source>Hello</source><translation>你好</translation></message>
    <message><source>Send</source><comment>button</comment><translation>发送</translation></message>
    <message><source>Todo</source><translation type="unfinished"></translation></message>
    <message><source>Old</source><translation type="vanished">旧</translation></message>
    <message><source>Two
lines</source><translation>两
行</translation></message>
</context>
<context>
    <name>Other</name>
    <message><source>Hello</source><translation>您好</translation></message>
</context>
</TS>
"""


@pytest.fixture
def english_afterwards(qapp: QApplication) -> Iterator[QApplication]:
    yield qapp
    install_translator(qapp, "en")


def load(path: Path) -> QTranslator:
    translator = QTranslator()
    assert translator.load(str(path))
    return translator


def test_elf_hash_matches_qt() -> None:
    # Values taken from a .qm written by Qt's own lrelease.
    assert elf_hash(b"Hello") == 0x004EC32F
    assert elf_hash(b"Send") == 0x00059C44
    assert elf_hash(b"") == 1


def test_compiled_qm_is_read_by_qtranslator(tmp_path: Path) -> None:
    ts_file = tmp_path / "demo_zh_CN.ts"
    ts_file.write_text(SAMPLE_TS, encoding="utf-8")
    qm_file = tmp_path / "demo_zh_CN.qm"
    compile_ts(ts_file, qm_file)
    translator = load(qm_file)
    assert translator.language() == "zh_CN"
    assert translator.translate("Demo", "Hello") == "你好"
    assert translator.translate("Other", "Hello") == "您好"
    assert translator.translate("Demo", "Send", "button") == "发送"
    assert translator.translate("Demo", "Two\nlines") == "两\n行"
    assert translator.translate("Demo", "Todo") == ""  # unfinished: not compiled
    assert translator.translate("Demo", "Old") == ""  # vanished: not compiled
    assert translator.translate("Demo", "Missing") == ""


def test_every_shipped_translation_round_trips(tmp_path: Path) -> None:
    language, messages = read_ts(TS_FILE)
    assert language == "zh_CN"
    assert len(messages) > 50
    translator = load(Path(compile_ts(TS_FILE, tmp_path / "m.qm") and tmp_path / "m.qm"))
    for message in messages:
        got = translator.translate(message.context, message.source, message.comment or None)
        assert got == message.translations[0], (message.context, message.source)


OWN_CONTEXTS = {
    "AppearanceTab", "ComposerWidget", "EmptyStateWidget", "HeaderWidget", "ModelPickerWidget",
    "ModelsTab", "ProviderForm", "ProvidersTab", "SettingsDialog", "StatusLabel",
    "ThreadItemDelegate", "ThreadListModel", "ThreadSidebar", "WelcomeView",
}  # fmt: skip


def test_every_string_of_these_widgets_is_translated() -> None:
    """Other packages add their strings to the same catalogue as they go; the whole
    catalogue is checked by ``python packaging/extract_strings.py --check``."""
    root = ET.parse(TS_FILE).getroot()
    unfinished = [
        (context.findtext("name"), message.findtext("source"))
        for context in root.iter("context")
        if context.findtext("name") in OWN_CONTEXTS
        for message in context.iter("message")
        if message.find("translation").get("type") == "unfinished"
    ]
    assert unfinished == []
    extract = runpy.run_path(str(Path(__file__).parents[2] / "packaging" / "extract_strings.py"))
    present = set(extract["_messages"](TS_FILE))
    missing = [f for f in extract["scan"]() if f.context in OWN_CONTEXTS and f not in present]
    assert missing == []


LRELEASE = Path(sys.executable).with_name("pyside6-lrelease")


@pytest.mark.skipif(not LRELEASE.is_file(), reason="Qt's lrelease is not installed")
def test_same_answers_as_qt_lrelease(tmp_path: Path) -> None:
    ours = tmp_path / "ours.qm"
    theirs = tmp_path / "theirs.qm"
    compile_ts(TS_FILE, ours)
    subprocess.run(
        [str(LRELEASE), str(TS_FILE), "-qm", str(theirs)], check=True, capture_output=True
    )
    a, b = load(ours), load(theirs)
    for message in read_ts(TS_FILE)[1]:
        assert a.translate(message.context, message.source) == b.translate(
            message.context, message.source
        )


def test_two_checkouts_sharing_the_cache_keep_their_own_translations(tmp_path: Path) -> None:
    """Two checkouts (two worktrees) share the user's cache: the one whose
    .ts changed last compiled over the other's file, and the other, seeing
    a file newer than its .ts, loaded translations that were not its own."""
    cache = tmp_path / "cache"
    text = TS_FILE.read_text(encoding="utf-8")
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder, content in ((ours, text), (theirs, text.replace("<translation>标准</translation>", "<translation>标准版</translation>", 1))):  # fmt: skip
        folder.mkdir()
        (folder / TS_FILE.name).write_text(content, encoding="utf-8")
    assert "标准版" in (theirs / TS_FILE.name).read_text(encoding="utf-8")
    mine = find_or_build_qm("zh_CN", i18n_dir=ours, cache_dir=cache)
    other = find_or_build_qm("zh_CN", i18n_dir=theirs, cache_dir=cache)
    assert mine is not None and other is not None and mine != other
    assert find_or_build_qm("zh_CN", i18n_dir=ours, cache_dir=cache) == mine
    translator = QTranslator()
    assert translator.load(str(mine))
    assert translator.translate("Timeline", "standard") == "标准"


def test_fresh_checkout_compiles_into_cache(tmp_path: Path) -> None:
    i18n_dir = tmp_path / "i18n"
    i18n_dir.mkdir()
    shutil.copy(TS_FILE, i18n_dir / TS_FILE.name)
    cache = tmp_path / "cache"
    built = find_or_build_qm("zh_CN", i18n_dir=i18n_dir, cache_dir=cache)
    assert built is not None and built.parent == cache and built.name.startswith("mira_zh_CN-")
    assert built.is_file()
    stamp = built.stat().st_mtime_ns
    assert find_or_build_qm("zh_CN", i18n_dir=i18n_dir, cache_dir=cache) == built
    assert built.stat().st_mtime_ns == stamp  # reused, not rebuilt
    os.utime(i18n_dir / TS_FILE.name, ns=(stamp + 10**9, stamp + 10**9))
    find_or_build_qm("zh_CN", i18n_dir=i18n_dir, cache_dir=cache)
    assert built.stat().st_mtime_ns > stamp  # .ts changed: rebuilt

    os.utime(i18n_dir / TS_FILE.name, ns=(stamp - 10**10, stamp - 10**10))
    shipped = i18n_dir / "mira_zh_CN.qm"  # a build step already ran (wheel, bundle)
    compile_ts(i18n_dir / TS_FILE.name, shipped)
    assert find_or_build_qm("zh_CN", i18n_dir=i18n_dir, cache_dir=cache) == shipped
    assert find_or_build_qm("fr", i18n_dir=i18n_dir, cache_dir=cache) is None


def test_resolve_language() -> None:
    assert resolve_language("zh_CN") == "zh_CN"
    assert resolve_language("en") == "en"
    assert resolve_language("system", QLocale("zh_CN")) == "zh_CN"
    assert resolve_language("system", QLocale("zh_TW")) == "zh_CN"
    assert resolve_language("system", QLocale("de_DE")) == "en"


def test_formats_follow_the_interface_language_in_the_systems_region() -> None:
    def name(language: str, system: str) -> str:
        return formats_locale(language, QLocale(system)).name()

    # the system speaks the language: its own formats
    assert name("en", "en_GB") == "en_GB"
    assert name("en", "en_US") == "en_US"
    assert name("zh_CN", "zh_CN") == "zh_CN"
    assert name("zh_CN", "zh_SG") == "zh_SG"
    # another language: the interface's, written as in the system's region
    assert name("en", "de_DE") == "en_DE"
    assert name("en", "zh_CN") == "en_US"  # no English of China: the main region
    assert name("zh_CN", "en_US") == "zh_CN"
    assert name("zh_CN", "zh_TW") == "zh_CN"  # Traditional script: not the interface's
    # the C/POSIX locale has no region and writes "27 11 2025 09:34"
    assert name("en", "C") == "en_US"
    assert name("zh_CN", "C") == "zh_CN"
    stamp = QDateTime.fromString("2025-11-27T09:34:00Z", Qt.DateFormat.ISODate)
    assert formats_locale("en", QLocale("de_DE")).toString(stamp, "d MMMM") == "27 November"
    assert formats_locale("en", QLocale("de_DE")).toString(1234567) == "1.234.567"


def _answer(status: MessageStatus, **fields: Any) -> Message:
    """An answer of 27 November 2020, 09:34 UTC."""
    return Message(
        id="m1",
        thread_id="t1",
        parent_id=None,
        role=MessageRole.ASSISTANT,
        text="hi",
        created_at="2020-11-27T09:34:00.000Z",
        status=status,
        **fields,
    )


def test_installing_a_language_sets_the_formats_of_dates_and_numbers(
    english_afterwards: QApplication, tmp_path: Path
) -> None:
    answer = _answer(MessageStatus.COMPLETE, model="llama3")
    stamp = QDateTime.fromString(answer.created_at, Qt.DateFormat.ISODateWithMs).toLocalTime()
    seen = {}
    for language in ("zh_CN", "en"):
        install_translator(english_afterwards, language, cache_dir=tmp_path)
        expected = formats_locale(language)
        assert QLocale().name() == expected.name()
        line, tooltip = meta_text(answer)
        date = expected.toString(stamp, QLocale.FormatType.ShortFormat)
        assert line == f"llama3 · {date}"
        assert tooltip == expected.toString(stamp, QLocale.FormatType.LongFormat)
        seen[language] = line
    if QLocale.system().language() != QLocale.Language.Chinese:
        assert "2020/11/27" in seen["zh_CN"]
    assert seen["zh_CN"] != seen["en"]
    c_line = QLocale.c().toString(stamp, QLocale.FormatType.ShortFormat)
    assert c_line not in seen.values()  # never the C locale's "27 11 2020 09:34"


def test_a_failed_answers_standard_hint_is_shown_in_the_interface_language(
    english_afterwards: QApplication, tmp_path: Path
) -> None:
    """Errors are stored with English hints; a standard one (the error class's
    own) is translated when shown, a specific one is shown as stored."""

    def failed(error: dict[str, str]) -> Message:
        return _answer(MessageStatus.FAILED, error=error)

    full = StorageError("The disk is full; nothing was lost.", disk_full=True).to_dict()
    specific = {"code": "network", "message": "refused", "hint": "Start Ollama, then retry."}
    install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path)
    assert status_texts(failed(full)) == (full["message"], "请确认数据文件夹可写、磁盘没有满。")
    assert status_texts(failed(specific)) == ("refused", "Start Ollama, then retry.")
    install_translator(english_afterwards, "en", cache_dir=tmp_path)
    assert status_texts(failed(full))[1] == StorageError.default_hint


def test_composer_shows_chinese_after_install(
    english_afterwards: QApplication, qtbot, tmp_path: Path
) -> None:
    before = ComposerWidget()  # exists already: must retranslate on LanguageChange
    qtbot.addWidget(before)
    assert install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path) == "zh_CN"
    after = ComposerWidget()
    qtbot.addWidget(after)
    expected = "给 Mira 发消息…（Enter 发送，Shift+Enter 换行）"
    assert after.editor.placeholderText() == expected
    assert before.editor.placeholderText() == expected
    assert before.send_button.text() == "发送"

    assert install_translator(english_afterwards, "en", cache_dir=tmp_path) == "en"
    assert before.send_button.text() == "Send"


def test_why_the_composer_is_disabled_follows_a_language_change(
    english_afterwards: QApplication, qtbot, tmp_path: Path
) -> None:
    composer = ComposerWidget()
    qtbot.addWidget(composer)
    composer.set_enabled_reason("no_model")
    assert composer.reason_label.text() == "Choose a model above to start chatting"
    install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path)
    chinese = composer.reason_label.text()
    assert chinese == composer.enabled_reason() and chinese.isascii() is False
    composer.set_enabled_reason("no_provider")
    install_translator(english_afterwards, "en", cache_dir=tmp_path)
    assert composer.reason_label.text() == "Add a provider in Settings to start chatting"
    composer.set_enabled_reason("Answering in another window")  # the caller's own text
    assert composer.reason_label.text() == "Answering in another window"
    composer.set_enabled_reason(None)
    install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path)
    assert composer.enabled_reason() is None and composer.reason_label.isHidden()


@pytest.mark.skipif(
    not (
        Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)) / "qtbase_zh_CN.qm"
    ).is_file(),
    reason="Qt's own translations are not installed",
)
def test_qt_standard_buttons_are_translated_too(
    english_afterwards: QApplication, qtbot, tmp_path: Path
) -> None:
    install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path)
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    qtbot.addWidget(box)
    assert box.button(QDialogButtonBox.StandardButton.Close).text() == "关闭"


def test_reinstalling_replaces_the_translators(
    english_afterwards: QApplication, tmp_path: Path
) -> None:
    for _ in range(3):
        install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path)
    live = [
        t
        for t in english_afterwards.findChildren(QTranslator)
        if t.objectName() == "mira-translator"
    ]
    assert len(live) <= 2  # Mira's + qtbase, not three copies of each


def test_an_answers_reasoning_level_is_in_its_meta_tooltip(
    english_afterwards: QApplication, tmp_path: Path
) -> None:
    asked = _answer(MessageStatus.COMPLETE, model="qwen3", data={"reasoning": "high"})
    plain = _answer(MessageStatus.COMPLETE, model="qwen3")
    assert meta_text(asked)[1].endswith("\nReasoning effort: high")
    assert "Reasoning" not in meta_text(plain)[1]
    assert meta_text(asked)[0] == meta_text(plain)[0]  # the line itself stays short
    install_translator(english_afterwards, "zh_CN", cache_dir=tmp_path)
    assert meta_text(asked)[1].endswith("\n推理强度：高")
