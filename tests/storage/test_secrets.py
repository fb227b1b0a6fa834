"""API keys: keyring when usable, else a 0600 file; never the database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mira_desktop.bootstrap import build_services
from mira_desktop.core.errors import MiraError, StorageError
from mira_desktop.storage.secrets import SecretStore


class MemoryKeyring:
    """A stand-in OS keyring (keyring's backend interface), for the keyring path."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, user: str) -> str | None:
        return self.items.get((service, user))

    def set_password(self, service: str, user: str, secret: str) -> None:
        self.items[(service, user)] = secret

    def delete_password(self, service: str, user: str) -> None:
        del self.items[(service, user)]


def test_file_fallback_is_private_and_round_trips(tmp_path: Path) -> None:
    store = SecretStore(tmp_path, use_keyring=False)
    assert not store.uses_keyring and "file" in store.describe()
    store.set("p1", "sk-one")
    store.set("p2", "sk-two")
    assert (tmp_path / "secrets.json").stat().st_mode & 0o777 == 0o600
    assert SecretStore(tmp_path, use_keyring=False).get("p1") == "sk-one"
    store.delete("p1")
    assert store.get("p1") is None and store.get("p2") == "sk-two"


def test_null_keyring_backend_means_file(tmp_path: Path) -> None:
    # tests/conftest.py selects keyring's null backend through keyring's own variable
    store = SecretStore(tmp_path)
    assert not store.uses_keyring


def test_keyring_backend_is_used_when_present(tmp_path: Path) -> None:
    ring = MemoryKeyring()
    store = SecretStore(tmp_path, backend=ring)
    store.set("p1", "sk-ring")
    assert ring.items == {("mira-desktop", "p1"): "sk-ring"}
    assert store.get("p1") == "sk-ring" and not (tmp_path / "secrets.json").exists()
    assert "keyring" in store.describe()
    store.delete("p1")
    assert ring.items == {}


def test_unreadable_secrets_file_is_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "secrets.json").write_text("{broken")
    assert SecretStore(tmp_path, use_keyring=False).get("p1") is None


class LockedKeyring(MemoryKeyring):
    """A keyring that is there but refuses (locked, its D-Bus service gone)."""

    def __init__(self) -> None:
        super().__init__()
        self.locked = True

    def get_password(self, service: str, user: str) -> str | None:
        if self.locked:
            raise RuntimeError("Collection is locked")
        return super().get_password(service, user)

    def set_password(self, service: str, user: str, secret: str) -> None:
        if self.locked:
            raise RuntimeError("Collection is locked")
        super().set_password(service, user, secret)


def test_a_refusing_keyring_is_said_in_words_and_nothing_goes_to_the_file(
    tmp_path: Path,
) -> None:
    store = SecretStore(tmp_path, backend=LockedKeyring())
    with pytest.raises(StorageError, match="did not take the API key") as taken:
        store.set("p1", "sk-secret")
    assert "locked" in taken.value.message and "sk-secret" not in taken.value.message
    assert "Unlock" in (taken.value.hint or "")
    with pytest.raises(StorageError, match="Could not read the API key"):
        store.get("p1")
    assert not (tmp_path / "secrets.json").exists()


async def test_a_provider_is_not_left_claiming_a_key_the_keyring_refused(
    tmp_path: Path,
) -> None:
    ring = LockedKeyring()
    services = build_services(tmp_path, secrets=SecretStore(tmp_path, backend=ring))
    try:
        with pytest.raises(StorageError, match="did not take the API key"):
            await services.providers.add_provider(
                "cloud", "openai", "https://api.example.com/v1", "sk-1"
            )
        assert await services.providers.list_providers() == []
        ring.locked = False  # unlocked: the same form saved again works
        added = await services.providers.add_provider(
            "cloud", "openai", "https://api.example.com/v1", "sk-1"
        )
        assert added.has_key and ring.get_password("mira-desktop", added.id) == "sk-1"
        await services.providers.add_provider("other", "openai", "https://b.example.com/v1")
        # a rename refused (the name is taken) leaves the key as it was
        with pytest.raises(MiraError):
            await services.providers.update_provider("cloud", new_name="other", api_key="sk-2")
        assert ring.get_password("mira-desktop", added.id) == "sk-1"
    finally:
        await services.aclose()


def test_a_damaged_key_file_is_kept_aside_not_overwritten(tmp_path: Path) -> None:
    store = SecretStore(tmp_path, use_keyring=False)
    store.set("p1", "sk-one")
    store.set("p2", "sk-two")
    (tmp_path / "secrets.json").write_text('{"p1": "sk-one", "p2": "sk-tw')  # cut short
    store.set("p3", "sk-three")
    assert store.get("p3") == "sk-three"
    [kept] = tmp_path.glob("secrets.damaged-*.json")
    assert '"p1": "sk-one"' in kept.read_text()  # the other keys can still be mended
    assert kept.stat().st_mode & 0o777 == 0o600


WRITER = """
import sys
from pathlib import Path
from mira_desktop.storage.secrets import SecretStore

store = SecretStore(Path(sys.argv[1]), use_keyring=False)
for n in range(60):
    store.set(f"{sys.argv[2]}{n}", "sk")
"""


def test_two_processes_adding_keys_at_once_keep_all_of_them(tmp_path: Path) -> None:
    """The window and a command line can both add providers: every key stays."""
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name])
        for name in ("window-", "cli-")
    ]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    data = json.loads((tmp_path / "secrets.json").read_text())
    assert len(data) == 120
