"""API keys: keyring when usable, else a 0600 file; never the database."""

from __future__ import annotations

from pathlib import Path

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
