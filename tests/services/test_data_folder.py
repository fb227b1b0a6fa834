"""Another data folder chosen in Settings (PRODUCT.md §12), switched to at
the next start: an empty folder gets a real copy of the data then (the
database, attachments, the key file — everything written until the old
window closed), a folder Mira used before is taken as it is, anything else is
refused, and so is a folder inside the current one or holding it; an
unfinished copy is never trusted; choosing the current folder again cancels;
--data-dir and MIRA_DATA_DIR still win."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services, switch_data_folder
from mira_desktop.core.errors import ConfigError, StorageError
from mira_desktop.paths import (
    DATA_DIR_ENV,
    ChosenFolderMissing,
    UnusableDataDir,
    choose_data_dir,
    chosen_data_dir,
    default_data_dir,
    resolve_data_dir,
)
from mira_desktop.services.data_folder import COPYING_MARKER, read_switch
from mira_desktop.storage.secrets import SecretStore
from tests.services.seed import make_thread


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform's configuration folder, in the test's own folder."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    return home


async def with_data(data_dir: Path) -> Services:
    services = build_services(data_dir, secrets=SecretStore(data_dir, use_keyring=False))
    await make_thread(services, "Kept across folders 数据", ["question", "answer"])
    sha = await services.media.put(b"an attachment's bytes", "text/plain")
    assert sha
    services.secrets.set("provider-1", "sk-kept")
    return services


async def test_an_empty_folder_gets_a_copy_at_the_next_start(tmp_path: Path) -> None:
    """Nothing is copied while Mira runs: what the window writes after the
    choice (here a second thread) is in the copy made at the next start,
    before its database opens."""
    services = await with_data(tmp_path / "old")
    target = tmp_path / "new place"
    try:
        change = await services.data_folder.change_to(target)
        assert change.copy and change.folder == target.resolve()
        assert services.data_folder.pending() == change
        assert not (target / "mira.sqlite3").exists() and chosen_data_dir() is None
        await make_thread(services, "Written after the choice", ["later"])
    finally:
        await services.aclose()
    switch = switch_data_folder((tmp_path / "old").resolve())
    assert switch is not None and switch.error is None and switch.copied
    assert switch.folder == target.resolve() and switch.previous == (tmp_path / "old").resolve()
    assert chosen_data_dir() == target.resolve() and resolve_data_dir() == target.resolve()
    assert switch_data_folder(target.resolve()) is None  # made once
    conn = sqlite3.connect(target / "mira.sqlite3")
    titles = sorted(row[0] for row in conn.execute("SELECT title FROM threads"))
    assert titles == ["Kept across folders 数据", "Written after the choice"] and conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)  # fmt: skip
    conn.close()
    copied = [p.read_bytes() for p in (target / "media").rglob("*") if p.is_file()]
    assert b"an attachment's bytes" in copied
    assert (target / "secrets.json").stat().st_mode & 0o077 == 0  # still owner-only
    assert not (target / COPYING_MARKER).exists()
    moved = build_services(target, secrets=SecretStore(target, use_keyring=False))
    try:
        assert moved.secrets.get("provider-1") == "sk-kept"
        assert len(await moved.threads.list_threads()) == 2
    finally:
        await moved.aclose()
    assert (tmp_path / "old" / "mira.sqlite3").is_file()  # the old folder is left as it was


async def test_choosing_the_current_folder_again_cancels_the_switch(tmp_path: Path) -> None:
    services = await with_data(tmp_path / "old")
    try:
        with pytest.raises(ConfigError) as caught:  # nothing to cancel
            await services.data_folder.change_to(tmp_path / "old")
        assert caught.value.message == "Mira already uses this folder."
        await services.data_folder.change_to(tmp_path / "new")
        change = await services.data_folder.change_to(tmp_path / "old")
        assert change.cancelled and change.folder == (tmp_path / "new").resolve()
        assert services.data_folder.pending() is None
    finally:
        await services.aclose()
    assert switch_data_folder((tmp_path / "old").resolve()) is None
    assert chosen_data_dir() is None and not (tmp_path / "new" / "mira.sqlite3").exists()


@pytest.mark.parametrize("inside", ["new", "media/x", ".."])
async def test_a_folder_inside_the_current_one_or_holding_it_is_refused(
    tmp_path: Path, inside: str
) -> None:
    """Inside, the copy would copy itself (``media/x``: without end) and
    deleting the old folder would delete the new one."""
    data = tmp_path / "data"
    services = await with_data(data)
    target = (data / inside).resolve()
    try:
        with pytest.raises(ConfigError) as caught:
            await services.data_folder.change_to(data / inside)
    finally:
        await services.aclose()
    where = "is inside" if inside != ".." else "holds"
    assert caught.value.message == f'"{target}" {where} the current data folder "{data.resolve()}".'
    assert "outside the current data folder" in caught.value.hint
    assert services.data_folder.pending() is None and read_switch() is None
    assert not (data / "new").exists() and not (data / "media" / "x").exists()


async def test_an_unfinished_copy_is_never_taken_as_mira_data(tmp_path: Path) -> None:
    """A copy cut short (the process killed) leaves the database but not all
    the attachments, and its marker: such a folder is copied again, not
    trusted as a folder Mira used before."""
    services = await with_data(tmp_path / "old")
    target = tmp_path / "new"
    target.mkdir()
    (target / COPYING_MARKER).write_text("copying\n")
    (target / "mira.sqlite3").write_bytes((tmp_path / "old" / "mira.sqlite3").read_bytes())
    try:
        change = await services.data_folder.change_to(target)
    finally:
        await services.aclose()
    assert change.copy  # not "holds Mira's data already"
    switch = switch_data_folder((tmp_path / "old").resolve())
    assert switch is not None and switch.copied and switch.error is None
    assert not (target / COPYING_MARKER).exists()
    assert b"an attachment's bytes" in [p.read_bytes() for p in (target / "media").rglob("*") if p.is_file()]  # fmt: skip


async def test_a_copy_that_fails_leaves_nothing_and_the_old_folder_in_use(tmp_path: Path) -> None:
    services = await with_data(tmp_path / "old")
    try:
        await services.data_folder.change_to(tmp_path / "new")
    finally:
        await services.aclose()
    (tmp_path / "old" / "media" / "gone").symlink_to(tmp_path / "nowhere")  # unreadable
    switch = switch_data_folder((tmp_path / "old").resolve())
    assert switch is not None and isinstance(switch.error, StorageError)
    assert switch.error.message.startswith(f'Could not copy the data to "{(tmp_path / "new").resolve()}"')  # fmt: skip
    assert switch.folder == (tmp_path / "old").resolve() and chosen_data_dir() is None
    assert list((tmp_path / "new").iterdir()) == [] and read_switch() is None


async def test_a_folder_mira_used_before_is_taken_as_it_is(tmp_path: Path) -> None:
    other = build_services(tmp_path / "other")
    await make_thread(other, "Theirs", ["hello"])
    await other.aclose()
    services = await with_data(tmp_path / "old")
    try:
        change = await services.data_folder.change_to(tmp_path / "other")
    finally:
        await services.aclose()
    assert not change.copy and chosen_data_dir() is None
    switch = switch_data_folder((tmp_path / "old").resolve())
    assert switch is not None and not switch.copied
    assert chosen_data_dir() == (tmp_path / "other").resolve()
    conn = sqlite3.connect(tmp_path / "other" / "mira.sqlite3")
    assert [row[0] for row in conn.execute("SELECT title FROM threads")] == ["Theirs"]
    conn.close()


async def test_other_folders_are_refused_and_the_flags_still_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = await with_data(tmp_path / "old")
    busy = tmp_path / "photos"
    busy.mkdir()
    (busy / "cat.jpg").write_bytes(b"meow")
    try:
        with pytest.raises(ConfigError) as caught:
            await services.data_folder.change_to(busy)
        assert caught.value.message == f'"{busy}" is not empty and holds no Mira data.'
        with pytest.raises(ConfigError):
            await services.data_folder.change_to(tmp_path / "old")
    finally:
        await services.aclose()
    assert chosen_data_dir() is None and sorted(p.name for p in busy.iterdir()) == ["cat.jpg"]
    services = await with_data(tmp_path / "old2")
    try:
        await services.data_folder.change_to(tmp_path / "chosen")
    finally:
        await services.aclose()
    assert switch_data_folder((tmp_path / "old2").resolve()) is not None
    assert resolve_data_dir() == (tmp_path / "chosen").resolve()
    assert resolve_data_dir(tmp_path / "flag") == (tmp_path / "flag").resolve()
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "env"))
    assert resolve_data_dir() == (tmp_path / "env").resolve()


def test_a_chosen_folder_that_is_not_there_is_not_made_again_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A drive not connected: its folder is said missing, never recreated
    empty (new conversations would be split from the others); the default
    folder can be used for this run instead. An empty --data-dir or
    MIRA_DATA_DIR (a script's unset variable) is refused."""
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))  # the default, here
    drive = tmp_path / "usb" / "MiraData"
    choose_data_dir(drive)
    with pytest.raises(ChosenFolderMissing) as missing:
        resolve_data_dir()
    assert str(drive) in str(missing.value) and not drive.exists()
    assert resolve_data_dir(default=True) == default_data_dir().resolve()
    assert default_data_dir().is_relative_to(tmp_path)
    with pytest.raises(UnusableDataDir, match="empty"):
        resolve_data_dir("")
    monkeypatch.setenv(DATA_DIR_ENV, "")
    with pytest.raises(UnusableDataDir, match="set but empty"):
        resolve_data_dir()


async def test_the_copy_reports_how_far_it_is_and_the_language_it_was_chosen_in(
    tmp_path: Path,
) -> None:
    """What the start's progress dialog shows: the bytes of the database, the
    attachments and the key file, all of them done at the end."""
    from mira_desktop.services.data_folder import CopyProgress, switch_language

    services = await with_data(tmp_path / "old")
    for number in range(5):
        await services.media.put(f"attachment {number} ".encode() * 5000, "text/plain")
    try:
        await services.data_folder.change_to(tmp_path / "new", language="zh_CN")
    finally:
        await services.aclose()
    assert switch_language() == "zh_CN"
    old = tmp_path / "old"
    expected = sum(p.stat().st_size for p in (old / "media").rglob("*") if p.is_file())
    expected += (old / "mira.sqlite3").stat().st_size + (old / "secrets.json").stat().st_size
    wal = old / "mira.sqlite3-wal"
    expected += wal.stat().st_size if wal.exists() else 0
    progress = CopyProgress()
    switch = switch_data_folder(old.resolve(), progress)
    assert switch is not None and switch.copied and switch.error is None
    assert progress.total == expected and progress.done == expected


def test_the_database_copy_reports_its_pages_step_by_step(tmp_path: Path) -> None:
    from mira_desktop.storage.database import copy_file

    source = tmp_path / "source.sqlite3"
    db = sqlite3.connect(source)
    db.execute("CREATE TABLE t (x TEXT)")
    db.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,) for _ in range(200)])
    db.commit()
    db.close()
    steps: list[tuple[int, int]] = []
    copy_file(source, tmp_path / "copy.sqlite3", lambda done, total: steps.append((done, total)),
              step_pages=10)  # fmt: skip
    total = steps[-1][1]
    assert len(steps) > 5 and steps[-1] == (total, total)
    assert [done for done, _ in steps] == sorted({done for done, _ in steps})  # growing
    copied = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copied.execute("SELECT COUNT(*) FROM t").fetchone() == (200,)
    copied.close()
