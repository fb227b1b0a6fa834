"""``mira-desktop --install-desktop-entry``: put Mira in this user's application menu.

A ``pip install`` puts a ``mira-desktop`` script in a virtual environment's ``bin/``
but no launcher in the desktop's menu. This writes one for the current user,
following the XDG Base Directory and Desktop Entry specifications (``$XDG_DATA_HOME``,
by default ``~/.local/share``):

* ``applications/io.mira.Desktop.desktop`` — the shipped entry
  (``resources/desktop/``) with ``Exec``/``TryExec`` pointing at the absolute path of
  the ``mira-desktop`` being run now (or the bundle's executable when frozen);
* ``icons/hicolor/<N>x<N>/apps/io.mira.Desktop.png`` for every shipped size and
  ``icons/hicolor/scalable/apps/io.mira.Desktop.svg``.

Running it again rewrites only what changed (after moving the environment, say) and
prints each file it wrote or found up to date. Qt-free, standard library only."""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from .paths import resource_path

log = logging.getLogger(__name__)

APP_ID = "io.mira.Desktop"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
LAUNCHER = "mira-desktop"
# Desktop Entry spec, "The Exec key": characters that force an argument into quotes
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def xdg_data_home() -> Path:
    """``$XDG_DATA_HOME`` when set to an absolute path (the spec ignores others)."""
    value = os.environ.get("XDG_DATA_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    return Path.home() / ".local" / "share"


def find_launcher() -> Path | None:
    """Absolute path of the installed ``mira-desktop`` for this Python, if any."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its own executable
        return Path(sys.executable).absolute()
    candidates: list[Path] = []
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name.startswith(LAUNCHER):  # mira-desktop(-cli)(.exe)
        candidates += [argv0, argv0.with_name(LAUNCHER)]
    candidates.append(Path(sys.executable).parent / LAUNCHER)  # the venv's bin/
    found = shutil.which(LAUNCHER)
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.name == LAUNCHER and candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate.absolute()
    return None


def exec_argument(value: str) -> str:
    """``value`` as one argument of a desktop entry's ``Exec`` key (quoted if needed)."""
    value = value.replace("%", "%%")
    if any(char in _RESERVED for char in value):
        value = '"' + re.sub(r'(["`$\\])', r"\\\1", value) + '"'
    return _escape_string(value)


def _escape_string(value: str) -> str:
    # the general "string" escapes, applied after Exec's own quoting rule
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def render_desktop_file(template: str, launcher: Path) -> str:
    """The shipped entry with ``Exec`` and ``TryExec`` pointing at ``launcher``."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_argument(str(launcher))} %F"
        elif line.startswith("TryExec="):
            line = f"TryExec={_escape_string(str(launcher))}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def planned_files(data_home: Path, launcher: Path) -> list[tuple[Path, bytes]]:
    """Every ``(destination, content)`` the installation writes."""
    template = resource_path("desktop", f"{APP_ID}.desktop").read_text("utf-8")
    files = [
        (
            data_home / "applications" / f"{APP_ID}.desktop",
            render_desktop_file(template, launcher).encode("utf-8"),
        )
    ]
    icons = data_home / "icons" / "hicolor"
    for size in ICON_SIZES:
        source = resource_path("icons", f"mira-{size}.png")
        if source.is_file():
            files.append((icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png", source.read_bytes()))
        else:
            log.warning("no %dpx icon at %s", size, source)
    svg = resource_path("icons", "mira.svg")
    files.append((icons / "scalable" / "apps" / f"{APP_ID}.svg", svg.read_bytes()))
    return files


def install_desktop_entry(
    data_home: Path | None = None,
    launcher: Path | None = None,
    echo: Callable[[str], None] = print,
) -> int:
    """Install the launcher and icons for this user; the exit code of the command."""
    if sys.platform in ("win32", "darwin"):
        echo(
            "--install-desktop-entry is for Linux desktops; on Windows and macOS use the "
            "installer (see packaging/README.md)."
        )
        return 1
    launcher = launcher or find_launcher()
    if launcher is None:
        echo(f"Cannot find the installed '{LAUNCHER}' program (is it on PATH?).")
        return 1
    data_home = data_home or xdg_data_home()
    try:
        for path, content in planned_files(data_home, launcher):
            if path.is_file() and path.read_bytes() == content:
                echo(f"up to date {path}")
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            echo(f"wrote      {path}")
    except OSError as exc:
        echo(f"Cannot install the desktop entry: {exc}")
        return 1
    echo(f"Mira Desktop is in your application menu; it starts {launcher}.")
    return 0
