"""Token counting works offline from the encodings shipped in resources/."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from mira_desktop.core.models import ChatMessage
from mira_desktop.paths import resource_path
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
