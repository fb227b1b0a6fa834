"""The interface's wording of errors raised by the Qt-free layers (English):
templates and constants translated, a server's own words left alone, also for
errors stored with a failed answer and read back."""

from __future__ import annotations

import ast
import gc
import string
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.core.errors import (
    MiraError,
    NetworkError,
    NotFoundError,
    RateLimitError,
    ServerError,
    StorageError,
    error_from_dict,
    worded,
)
from mira_desktop.paths import resource_path
from mira_desktop.providers.errormap import (
    ErrorInfo,
    classify_error,
    error_from_response,
    network_error,
)
from mira_desktop.services.readers import DocumentRefusedError, read_document
from mira_desktop.services.run_support import unsaved_error
from mira_desktop.ui.error_texts import (
    error_line,
    hint_text,
    known_texts,
    message_text,
    window_hints,
)
from mira_desktop.ui.i18n import install_translator

ROOT = Path(__file__).parents[2] / "mira_desktop"
TS_FILE = resource_path("i18n", "mira_zh_CN.ts")


@pytest.fixture
def chinese(qapp: QApplication, tmp_path: Path) -> Iterator[QApplication]:
    install_translator(qapp, "zh_CN", cache_dir=tmp_path)
    yield qapp
    install_translator(qapp, "en", cache_dir=tmp_path)


def _qt_free_literals() -> set[str]:
    found: set[str] = set()
    # CPython 3.11's ast.parse fails ("AST constructor recursion depth
    # mismatch") when a collection during it runs a finaliser — an earlier
    # test's task logging as it is freed: no collection while parsing
    gc.collect()
    gc.disable()
    try:
        for layer in ("core", "services", "storage", "providers"):
            for path in (ROOT / layer).rglob("*.py"):
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str):
                        found.add(node.value)
    finally:
        gc.enable()
    return found


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_known_text_is_still_written_by_the_code_it_translates(qapp) -> None:
    literals = _qt_free_literals()
    stale = [text for text in known_texts() if text not in literals]
    assert stale == []


def test_every_hint_the_window_words_its_own_way_is_still_written(qapp) -> None:
    literals = _qt_free_literals()
    assert [hint for hint in window_hints() if hint not in literals] == []
    assert not any("mira-desktop" in text for text in window_hints().values())


def test_a_hint_naming_a_command_reads_as_the_window_says_it(chinese) -> None:
    """A send to a provider removed meanwhile: the window's error names no
    command of the command line, and reads in Chinese (a stored one too)."""
    error = worded(
        NotFoundError,
        'No provider named "{name}".',
        {"name": "Local"},
        hint="List them with `mira-desktop provider list`.",
    )
    reloaded = error_from_dict(error.to_dict())
    assert message_text(reloaded) == "没有名为“Local”的模型服务。"
    assert hint_text(reloaded) == hint_text(error)
    assert "mira-desktop" not in hint_text(error) and "设置 → 模型服务" in hint_text(error)


def test_every_known_text_is_translated_with_the_same_fields() -> None:
    root = ET.parse(TS_FILE).getroot()
    [context] = [c for c in root.iter("context") if c.findtext("name") == "ErrorTexts"]
    catalogue = {m.findtext("source"): m.find("translation") for m in context.iter("message")}
    for source in known_texts():
        translation = catalogue[source]
        assert translation.get("type") is None and translation.text, source
        assert _fields(translation.text) == _fields(source), source


def test_a_network_error_reads_in_chinese_also_after_a_reload(chinese) -> None:
    error = network_error(httpx.ConnectError("refused"), "http://127.0.0.1:9")
    assert error.message == "Could not connect to http://127.0.0.1:9: refused"  # as stored
    assert message_text(error) == "无法连接到 http://127.0.0.1:9：refused"
    assert hint_text(error) == "请确认服务器正在运行、服务地址正确（例如先启动 Ollama）。"
    reloaded = error_from_dict(error.to_dict())  # a failed answer's error_json
    assert (message_text(reloaded), hint_text(reloaded)) == (
        message_text(error),
        hint_text(error),
    )
    assert error_line(reloaded, "\n") == f"{message_text(error)}\n{hint_text(error)}"


def test_constants_are_looked_up_and_the_servers_words_left_alone(chinese) -> None:
    busy = MiraError("This thread is still answering.", hint="Stop it first, then send.")
    assert error_line(busy) == "此对话仍在回答中。 请先停止，再发送。"
    server = ServerError("upstream model crashed: CUDA out of memory")
    assert message_text(server) == "upstream model crashed: CUDA out of memory"
    assert hint_text(server) == "模型服务器出错了；请重试，或查看它的日志。"


def test_an_unsaved_answer_on_a_full_disk_reads_in_chinese(chinese) -> None:
    full = worded(StorageError, "The disk is full; nothing was lost, but this change was not saved ({detail}).", {"detail": "database or disk is full"}, disk_full=True)  # fmt: skip
    stored = unsaved_error(full, has_answer=True)
    assert stored["code"] == "storage"
    error = error_from_dict(stored)
    assert message_text(error) == (
        "这条回答未能保存：磁盘已满。请腾出一些空间，再次打开此对话即可保存；"
        "在此之前关闭 Mira 会丢失它。"
    )
    assert hint_text(error) == "请确认数据文件夹可写、磁盘没有满。"
    other = unsaved_error(RuntimeError("boom"), has_answer=True)
    assert other["code"] == "internal"
    assert other["message"].startswith("This answer could not be saved (Could not save the")


def test_english_shows_the_messages_as_written(qapp) -> None:
    error = network_error(httpx.ConnectTimeout("slow"), "http://h")
    assert message_text(error) == error.message == "Timed out connecting to http://h"
    assert isinstance(error, NetworkError)


def test_a_translation_with_other_fields_falls_back_to_the_message(qapp) -> None:
    error = worded(MiraError, "Database error: {detail}", {"detail": "x"})
    error.params = {}  # as if stored by an older version with other fields
    assert message_text(error) == "Database error: x"


def test_a_refused_file_reads_in_chinese_with_its_phrases(chinese, tmp_path: Path) -> None:
    """Real refusals of the readers: a damaged PDF (the phrase "a PDF" filled
    in is translated too), an empty file; the file's own name stays."""
    damaged = tmp_path / "报告 {final}.pdf"  # braces in a name are no fields
    damaged.write_bytes(b"not a pdf at all")
    with pytest.raises(DocumentRefusedError) as caught:
        read_document(damaged)
    assert caught.value.message == (
        '"报告 {final}.pdf" cannot be read: it is damaged or not really a PDF (no PDF header).'
    )
    assert message_text(caught.value) == (
        "无法读取“报告 {final}.pdf”：文件已损坏，或并不是PDF 文件（没有 PDF 文件头）。"
    )
    assert hint_text(caught.value) == "请用创建它的程序打开，另存一份新副本，再附加该副本。"
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"")
    with pytest.raises(DocumentRefusedError) as caught:
        read_document(blank)
    assert error_line(caught.value) == "“blank.txt”是空文件（0 字节）。 请确认选对了文件。"


def test_how_long_to_wait_after_a_rate_limit_reads_in_chinese(chinese) -> None:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    body = {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}
    timed = error_from_response(
        httpx.Response(429, headers={"retry-after": "7"}, json=body, request=request)
    )
    assert timed.hint == "Wait 7 s and retry."  # stored in English
    assert hint_text(error_from_dict(timed.to_dict())) == "请等待 7 秒后重试。"
    untimed = error_from_response(httpx.Response(429, json=body, request=request))
    assert hint_text(untimed) == "请稍等片刻再重试。"
    assert message_text(untimed) == "Rate limit reached"  # the server's own words


def test_hints_written_with_a_value_read_in_chinese_also_after_a_reload(
    chinese, tmp_path: Path
) -> None:
    """Hints that name a format or a list (save it as .docx, the supported
    formats) are templates too: translated and filled, the list translated
    as a known phrase; stored and read back, they still are."""
    old = tmp_path / "合同.doc"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 64)
    locked = tmp_path / "locked.xlsx"  # an encrypted Office file is an OLE file
    locked.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 64)
    odd = tmp_path / "model.stl"
    odd.write_bytes(b"\x00\x01\x02solid binary")
    hints = {}
    for path in (old, locked, odd):
        with pytest.raises(DocumentRefusedError) as caught:
            read_document(path)
        reloaded = error_from_dict(caught.value.to_dict())
        assert hint_text(reloaded) == hint_text(caught.value)
        hints[path.name] = (caught.value.hint, hint_text(caught.value))
    assert hints["合同.doc"] == ("Save it as .docx and attach that copy.", "请另存为 .docx 格式，再附加该副本。")  # fmt: skip
    assert hints["locked.xlsx"][1] == "请打开它、移除密码，另存为 .xlsx 格式，再附加该副本。"
    english, chinese_hint = hints["model.stl"]
    assert english.startswith("Supported: images (PNG, JPG, WebP, GIF), text,")
    assert chinese_hint.startswith("支持的格式：图片（PNG、JPG、WebP、GIF）、纯文本、")


def test_a_hint_template_with_other_fields_falls_back_to_the_hint(qapp) -> None:
    error = worded(MiraError, "Database error: {detail}", {"detail": "x"}, hint_template="Use {detail}.")  # fmt: skip
    assert error.hint == "Use x."
    error.params = {}  # as if stored by an older version with other fields
    assert hint_text(error) == "Use x."


def test_a_rate_limits_wait_and_a_used_up_quota_read_in_chinese(chinese) -> None:
    """The wait is whole seconds, minutes, hours or days, in both languages,
    also after a reload; a used-up quota says so instead of "wait"."""
    waits = {29.6469: "请等待 30 秒后重试。", 300: "请等待 5 分钟后重试。",
             7200: "请等待 2 小时后重试。", 2.30006e9: "请等待 26622 天后重试。",
             None: "请稍等片刻再重试。"}  # fmt: skip
    for retry_after, chinese_hint in waits.items():
        error = RateLimitError("slow down", retry_after=retry_after)
        reloaded = error_from_dict(error.to_dict())
        assert hint_text(error) == hint_text(reloaded) == chinese_hint, retry_after
    quota = classify_error(ErrorInfo("quota", code="insufficient_quota"), 429)
    assert hint_text(error_from_dict(quota.to_dict())) == (
        "该账户的配额或额度已用完：请向提供方查看套餐和账单（等待也无济于事）。"
    )
