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


def resolve_data_dir(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir`` wins, then ``MIRA_DATA_DIR``, then the platform data folder."""
    if cli_value:
        path = Path(cli_value)
    elif os.environ.get(DATA_DIR_ENV):
        path = Path(os.environ[DATA_DIR_ENV])
    else:
        path = default_data_dir()
    path = path.expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path
