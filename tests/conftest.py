"""Suite-wide fixtures: an isolated data folder per test, offline tiktoken, and the
loopback provider server (tests/support/loopback.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["tests.support.fixtures"]

# Never touch the real keyring of the machine running the tests: keyring's own
# switch selects its null backend, which Mira treats as "no keyring" (file fallback).
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "mira-data"
    path.mkdir()
    return path
