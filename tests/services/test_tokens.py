"""Token counting works offline from the encodings shipped in resources/."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mira_desktop.core.models import ChatMessage
from mira_desktop.paths import resource_path
from mira_desktop.services import tokens
from mira_desktop.services.tokens import TiktokenCounter

EXPECTED = {
    "9b5ad71b2ce5302211f9c61530b329a4922fc6a4": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "fb374d419588a4632f3f557e76b4b70aebbca790": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def test_shipped_encodings_are_the_files_tiktoken_expects() -> None:
    cache = resource_path("tiktoken_cache")
    for name, sha in EXPECTED.items():
        assert hashlib.sha256((cache / name).read_bytes()).hexdigest() == sha


def test_counting_needs_no_download(tmp_path: Path) -> None:
    # A child process with no proxy to anywhere and an unreachable network would hang or
    # fail if tiktoken tried to download; it must answer at once from the shipped files.
    code = (
        "from mira_desktop.paths import resource_path;"
        "from mira_desktop.services.tokens import TiktokenCounter;"
        "c = TiktokenCounter(resource_path('tiktoken_cache'));"
        "print(c.count('Mira 桌面助手: hello 世界!'))"
    )
    env = {**os.environ, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 5
    assert sorted(p.name for p in resource_path("tiktoken_cache").iterdir()) == sorted(EXPECTED)


def test_counts_text_and_messages() -> None:
    counter = TiktokenCounter(resource_path("tiktoken_cache"))
    assert counter.count("") == 0
    assert counter.count("hello world") == 2
    assert counter.count_messages([ChatMessage("user", "hello world")]) == 2 + 4 + 3


class _CountingEncoding:
    """The real encoding, with its ``encode`` calls counted."""

    def __init__(self, encoding: object) -> None:
        self._encoding = encoding
        self.calls = 0

    def encode(self, text: str, **kwargs: object) -> list[int]:
        self.calls += 1
        return self._encoding.encode(text, **kwargs)  # type: ignore[attr-defined]


def _spied() -> tuple[TiktokenCounter, _CountingEncoding]:
    counter = TiktokenCounter(resource_path("tiktoken_cache"))
    counter.load()
    spy = _CountingEncoding(counter._encoding)
    counter._encoding = spy
    return counter, spy


def test_a_text_counted_again_is_not_encoded_again() -> None:
    counter, spy = _spied()
    history = [f"message {n}: 上下文 context " * (n % 7 + 1) for n in range(300)]
    first = [counter.count(text) for text in history]
    assert spy.calls == 300
    again = [counter.count("".join([text])) for text in history]  # equal texts, new objects
    assert again == first and spy.calls == 300
    fresh = TiktokenCounter(resource_path("tiktoken_cache"))
    assert [fresh.count(text) for text in history] == first
    # texts of the same length are each counted
    assert (counter.count("the"), counter.count("上下文")) == (1, 2)


def test_kept_counts_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "KEPT_COUNTS", 40)
    counter, spy = _spied()
    texts = [f"text number {n} " * 3 for n in range(200)]
    counts = [counter.count(text) for text in texts]
    assert len(counter._counts) <= 40
    assert [counter.count(text) for text in texts[-20:]] == counts[-20:]
    assert spy.calls == 200  # the newest were kept
    assert [counter.count(text) for text in texts[:5]] == counts[:5]
    assert spy.calls == 205  # the oldest were not


def test_counting_from_several_threads_gives_the_same_counts() -> None:
    counter, _ = _spied()
    texts = [f"并发 count {n} " * (n % 5 + 1) for n in range(400)]
    expected = [TiktokenCounter(resource_path("tiktoken_cache")).count(t) for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: [counter.count(t) for t in texts], range(4)))
    assert all(result == expected for result in results)
