"""API keys: in the OS keyring when one exists, else in a 0600 JSON file in the
data folder. Keys never go into the database, the logs or an export; the
database only records *that* a provider has a key.

The keyring backend is chosen by the keyring library (its own
``PYTHON_KEYRING_BACKEND`` variable can force one). Backends that cannot store
anything (keyring's ``fail`` and ``null`` backends, or none found) mean "no
keyring", and the file is used instead; ``describe()`` says which is in use so
``provider list`` and Settings can tell the user.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import StorageError, worded

log = logging.getLogger(__name__)

_LOCKED_HINT = "Unlock the system keyring (logging in again often does), then try again."

SERVICE = "mira-desktop"
SECRETS_FILENAME = "secrets.json"


def _usable_keyring() -> object | None:
    try:
        import keyring
        from keyring.backends import fail
    except Exception:  # pragma: no cover - keyring is a dependency
        return None
    try:
        backend = keyring.get_keyring()
    except Exception as exc:
        log.warning("no usable keyring: %s", exc)
        return None
    name = type(backend).__module__ + "." + type(backend).__name__
    if isinstance(backend, fail.Keyring) or name.startswith("keyring.backends.null"):
        return None
    if getattr(backend, "priority", 1) <= 0:
        return None
    return backend


class SecretStore:
    """Reads and writes API keys for provider ids."""

    def __init__(self, data_dir: Path, backend: object | None = None, *, use_keyring: bool = True):
        self._file = data_dir / SECRETS_FILENAME
        self._given = backend
        self._resolved = backend is not None or not use_keyring

    @property
    def _backend(self) -> object | None:
        """The keyring backend, probed on first use (probing costs start-up time)."""
        if not self._resolved:
            self._given = _usable_keyring()
            self._resolved = True
        return self._given

    @property
    def uses_keyring(self) -> bool:
        return self._backend is not None

    @property
    def file_in_use(self) -> Path | None:
        """The file keys are kept in when there is no system keyring (else None)."""
        return None if self._backend is not None else self._file

    def describe(self) -> str:
        if self._backend is not None:
            return f"system keyring ({type(self._backend).__name__})"
        return f"file {self._file} (readable only by you; no system keyring found)"

    def get(self, key_id: str) -> str | None:
        if self._backend is not None:
            try:
                return self._backend.get_password(SERVICE, key_id)  # type: ignore[attr-defined, no-any-return]
            except Exception as exc:  # locked, D-Bus gone, access refused…
                raise worded(
                    StorageError,
                    "Could not read the API key from the system keyring ({reason}).",
                    {"reason": _reason(exc)},
                    hint=_LOCKED_HINT,
                ) from exc
        return self._read_file().get(key_id)

    def set(self, key_id: str, secret: str) -> None:
        """Store a key; a keyring that refuses raises a ``StorageError`` (the
        key is never written to the file behind a keyring's back)."""
        if self._backend is not None:
            try:
                self._backend.set_password(SERVICE, key_id, secret)  # type: ignore[attr-defined]
            except Exception as exc:
                raise worded(
                    StorageError,
                    "The system keyring did not take the API key ({reason}).",
                    {"reason": _reason(exc)},
                    hint=_LOCKED_HINT,
                ) from exc
            return
        with _locked(self._file):
            data = self._read_for_change()
            data[key_id] = secret
            self._write_file(data)

    def delete(self, key_id: str) -> None:
        if self._backend is not None:
            try:
                self._backend.delete_password(SERVICE, key_id)  # type: ignore[attr-defined]
            except Exception:
                log.debug("no keyring entry to delete for %s", key_id)
            return
        with _locked(self._file):
            data = self._read_for_change()
            if data.pop(key_id, None) is not None:
                self._write_file(data)

    def _read_file(self) -> dict[str, str]:
        try:
            return _parse(self._file.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.error("cannot read %s: %s", self._file, exc)
            return {}

    def _read_for_change(self) -> dict[str, str]:
        """The keys before a change. A file that cannot be read is never
        overwritten with only the new key (every other key lost): one that
        cannot be opened refuses the change; one whose content is damaged is
        kept aside, whole, for whoever can mend it."""
        try:
            text = self._file.read_text("utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise worded(
                StorageError,
                "Cannot read the API key file {file}: {reason}",
                {"file": self._file, "reason": exc.strerror or exc},
            ) from exc
        try:
            return _parse(text)
        except ValueError as exc:
            kept = self._file.with_name(
                f"{self._file.stem}.damaged-{os.getpid()}{self._file.suffix}"
            )
            os.replace(self._file, kept)
            log.error("%s is damaged (%s): kept as %s", self._file, exc, kept.name)
            return {}

    def _write_file(self, data: dict[str, str]) -> None:
        self._file.parent.mkdir(parents=True, exist_ok=True)
        # one name per process: two writing at once never share a half file
        tmp = self._file.with_name(f".{self._file.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.chmod(tmp, 0o600)
        os.replace(tmp, self._file)


def _reason(exc: BaseException) -> str:
    """The keyring's words, never a secret: they come from the backend's
    error, which is about the keyring, not the key."""
    return str(exc).strip() or type(exc).__name__


def _parse(text: str) -> dict[str, str]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return {str(k): str(v) for k, v in data.items()}


@contextmanager
def _locked(file: Path) -> Iterator[None]:
    """The key file's change, one process at a time (the window and a
    command line may both add a provider): a lock on ``file.lock``."""
    file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(file.with_name(file.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows only
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for about 10 s
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
