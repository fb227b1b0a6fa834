"""``configure_logging``: one handler of Mira's on the root logger however
often it is called, the rotated file in the data folder, stderr when the
log folder cannot be made."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest

from mira_desktop.bootstrap import configure_logging


@pytest.fixture(autouse=True)
def _root_logger_restored() -> Iterator[None]:
    """The handlers a test adds to the root logger are removed and closed after."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in before:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def _new_handlers(before: list[logging.Handler]) -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if h not in before]


def test_logging_is_set_up_once_and_writes_the_data_folder_log(tmp_path: Path) -> None:
    before = list(logging.getLogger().handlers)
    path = configure_logging(tmp_path)
    assert path == tmp_path / "logs" / "mira.log"
    (handler,) = _new_handlers(before)
    assert isinstance(handler, RotatingFileHandler)
    # a second call (another data folder) keeps the one handler
    assert configure_logging(tmp_path / "other") == tmp_path / "other" / "logs" / "mira.log"
    assert _new_handlers(before) == [handler]
    logging.getLogger("mira_desktop.test").info("written to the file")
    handler.flush()
    assert "written to the file" in path.read_text(encoding="utf-8")


def test_a_log_folder_that_cannot_be_made_logs_warnings_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "logs").write_text("a file where the folder should be", encoding="utf-8")
    before = list(logging.getLogger().handlers)
    configure_logging(tmp_path)
    (handler,) = _new_handlers(before)
    assert type(handler) is logging.StreamHandler and handler.level == logging.WARNING
    assert "cannot write the log in" in capsys.readouterr().err
    configure_logging(tmp_path)  # and it too is added only once
    assert _new_handlers(before) == [handler]
