"""Another data folder chosen in Settings (PRODUCT.md §12), used from the
next start: an empty folder gets a real copy of the data (the database
copied while it is open, attachments, the key file), a folder Mira used
before is taken as it is, anything else is refused; --data-dir and
MIRA_DATA_DIR still win."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import ConfigError
from mira_desktop.paths import DATA_DIR_ENV, chosen_data_dir, resolve_data_dir
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


async def test_an_empty_folder_gets_a_copy_and_is_used_from_the_next_start(tmp_path: Path) -> None:
    services = await with_data(tmp_path / "old")
    target = tmp_path / "new place"
    try:
        change = await services.data_folder.change_to(target)
    finally:
        await services.aclose()
    assert change.copied and change.folder == target.resolve()
    assert chosen_data_dir() == target.resolve() and resolve_data_dir() == target.resolve()
    conn = sqlite3.connect(target / "mira.sqlite3")
    titles = [row[0] for row in conn.execute("SELECT title FROM threads")]
    assert titles == ["Kept across folders 数据"] and conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)  # fmt: skip
    conn.close()
    copied = [p.read_bytes() for p in (target / "media").rglob("*") if p.is_file()]
    assert b"an attachment's bytes" in copied
    assert (target / "secrets.json").stat().st_mode & 0o077 == 0  # still owner-only
    moved = build_services(target, secrets=SecretStore(target, use_keyring=False))
    try:
        assert moved.secrets.get("provider-1") == "sk-kept"
        assert [t.title for t in await moved.threads.list_threads()] == ["Kept across folders 数据"]
    finally:
        await moved.aclose()
    assert (tmp_path / "old" / "mira.sqlite3").is_file()  # the old folder is left as it was


async def test_a_folder_mira_used_before_is_taken_as_it_is(tmp_path: Path) -> None:
    other = build_services(tmp_path / "other")
    await make_thread(other, "Theirs", ["hello"])
    await other.aclose()
    services = await with_data(tmp_path / "old")
    try:
        change = await services.data_folder.change_to(tmp_path / "other")
    finally:
        await services.aclose()
    assert not change.copied and chosen_data_dir() == (tmp_path / "other").resolve()
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
    assert resolve_data_dir(tmp_path / "flag") == (tmp_path / "flag").resolve()
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "env"))
    assert resolve_data_dir() == (tmp_path / "env").resolve()
