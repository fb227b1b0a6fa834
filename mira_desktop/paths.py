"""Where things live: the user's data folder and the application's resources.

``resource_path()`` is the one place that knows the three layouts Mira runs
from: a source checkout (``resources/`` next to the package), an installed wheel
(``mira_desktop/_resources/``, mapped there by the build) and a PyInstaller
bundle (``sys._MEIPASS/resources``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "mira-desktop"
DATA_DIR_ENV = "MIRA_DATA_DIR"


def resources_root() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    package = Path(__file__).resolve().parent
    installed = package / "_resources"
    if installed.is_dir():
        return installed
    return package.parent / "resources"


def resource_path(*parts: str) -> Path:
    """Path of a shipped resource, e.g. ``resource_path("qss", "dark.qss")``."""
    return resources_root().joinpath(*parts)


def default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def location_file() -> Path:
    """Where the data folder chosen in Settings is remembered (the platform's
    configuration folder: outside the data folder it names)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False)) / "data-folder.txt"


def switch_file() -> Path:
    """Where a data folder switch chosen in Settings waits for the window's
    next start (``services/data_folder.py``), beside ``location_file()``."""
    return location_file().with_name("data-folder-switch.json")


def data_dir_overridden(cli_value: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``--data-dir`` or ``MIRA_DATA_DIR`` names the folder: then the
    folder chosen in Settings (and a switch to one) does not apply."""
    return bool(cli_value or os.environ.get(DATA_DIR_ENV))


def chosen_data_dir() -> Path | None:
    """The data folder chosen in Settings (Chat & data → Change…), if any."""
    try:
        text = location_file().read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return Path(text) if text else None


def choose_data_dir(path: Path) -> None:
    """Remember ``path`` as the data folder of the next starts."""
    target = location_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".tmp")
    partial.write_text(f"{path}\n", encoding="utf-8")
    partial.replace(target)


class UnusableDataDir(OSError):
    """A data folder named so that it cannot be used (its message says why)."""


class ChosenFolderMissing(UnusableDataDir):
    """The data folder chosen in Settings is not there (a drive not
    connected, a network share down): never replaced by a new empty one,
    where new conversations would be split from the others."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"The data folder chosen in Settings, {path}, is not there (is its drive connected?)."
        )
        self.path = path


def resolve_data_dir(
    cli_value: str | os.PathLike[str] | None = None, *, default: bool = False
) -> Path:
    """``--data-dir`` wins, then ``MIRA_DATA_DIR``, then the folder chosen in
    Settings (``ChosenFolderMissing`` when it is not there; ``default`` takes
    the platform folder instead, for this run), then the platform data folder.
    An empty ``--data-dir ""`` or ``MIRA_DATA_DIR=`` is refused: a script's
    unset variable must not reach the person's own data."""
    if cli_value is not None and not str(cli_value).strip():
        raise UnusableDataDir("--data-dir names no folder (an empty value).")
    if DATA_DIR_ENV in os.environ and not os.environ[DATA_DIR_ENV].strip() and not cli_value:
        raise UnusableDataDir(f"{DATA_DIR_ENV} is set but empty: it names no folder.")
    chosen = None if data_dir_overridden(cli_value) or default else chosen_data_dir()
    if cli_value:
        path = Path(cli_value)
    elif os.environ.get(DATA_DIR_ENV):
        path = Path(os.environ[DATA_DIR_ENV])
    elif chosen is not None:
        path = chosen.expanduser()
        if not path.is_dir():
            raise ChosenFolderMissing(path)
    else:
        path = default_data_dir()
    path = path.expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path
