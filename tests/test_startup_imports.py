"""Start-up stays lean (issue 9, start-up benchmark): opening a data folder and
the window's launch path import only what the first frame needs. The heavy
stacks — httpx, the export renderer (markdown-it, pygments), tiktoken, the
document readers' libraries, sqlite-utils, the CLI's command modules, dialogs —
load on first use. Each check runs in a fresh interpreter (``sys.modules`` of
the test process is shared with every other test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Never needed before a model is called, a file attached or a thread exported.
HEAVY = ("httpx", "tiktoken", "pypdf", "docx", "openpyxl")


def _loaded(code: str, names: list[str], tmp_path: Path) -> dict[str, bool]:
    """Which of ``names`` are in ``sys.modules`` after running ``code``."""
    script = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json, sys
        print(json.dumps({{n: n in sys.modules for n in {names!r}}}))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MIRA_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_opening_a_data_folder_imports_no_heavy_stack(tmp_path: Path) -> None:
    """``import mira_desktop.app``, parsing a window launch and ``build_services``
    (which opens and migrates the database) load no service stack and no CLI
    command module."""
    names = [
        *HEAVY,
        "markdown_it",
        "pygments",
        "sqlite_utils",
        "click",
        "importlib.metadata",
        "PySide6",
        "mira_desktop.cli.chat_cmd",
        "mira_desktop.cli.export_cmd",
        "mira_desktop.services.chat",
        "mira_desktop.services.export",
        "mira_desktop.services.importers",
        "mira_desktop.services.kb",
        "mira_desktop.services.readers",
        "mira_desktop.providers.base",
    ]
    loaded = _loaded(
        f"""
        from pathlib import Path
        from mira_desktop.app import main  # noqa: F401
        from mira_desktop.bootstrap import build_services
        from mira_desktop.cli.parser import parse_arguments

        args = parse_arguments(["--data-dir", {str(tmp_path / "d")!r}, "--screenshot", "x.png"])
        assert args.command is None and args.screenshot == "x.png", args
        services = build_services(Path(args.data_dir))
        services.store.close()
        """,
        names,
        tmp_path,
    )
    assert [name for name, present in loaded.items() if present] == []


def test_services_are_built_on_first_use(tmp_path: Path) -> None:
    """A service's stack is imported when its attribute is first read, and a
    service is built once."""
    loaded = _loaded(
        f"""
        from pathlib import Path
        from mira_desktop.bootstrap import build_services

        services = build_services(Path({str(tmp_path / "d")!r}))
        assert services.exports is services.exports
        services.store.close()
        """,
        ["mira_desktop.services.export", "mira_desktop.services.kb", "httpx"],
        tmp_path,
    )
    assert loaded == {
        "mira_desktop.services.export": True,
        "mira_desktop.services.kb": False,
        "httpx": False,
    }


def test_window_screenshot_launch_defers_what_the_first_frame_does_not_need(
    tmp_path: Path,
) -> None:
    """``mira-desktop --screenshot`` (the start-up benchmark's command) renders
    the window without httpx, tiktoken, the readers' libraries, the CLI command
    modules, the settings and search dialogs or the single-instance socket."""
    names = [
        *HEAVY,
        "importlib.metadata",
        "mira_desktop.cli.chat_cmd",
        "mira_desktop.ui.dialogs.settings_dialog",
        "mira_desktop.ui.dialogs.workspace_dialog",
        "mira_desktop.ui.search.search_dialog",
        "mira_desktop.ui.single_instance",
        "PySide6.QtNetwork",
    ]
    loaded = _loaded(
        f"""
        from mira_desktop.app import main

        rc = main(["--data-dir", {str(tmp_path / "w")!r}, "--screenshot", {str(tmp_path / "w.png")!r}])
        assert rc == 0, rc
        """,
        names,
        tmp_path,
    )
    assert [name for name, present in loaded.items() if present] == []
    assert (tmp_path / "w.png").stat().st_size > 0


def test_command_names_match_the_command_modules() -> None:
    """The window's launch tells commands from files by ``COMMAND_NAMES``
    without importing the modules; both lists must agree."""
    from mira_desktop.cli.parser import COMMAND_NAMES, command_modules

    assert tuple(module.NAME for module in command_modules()) == COMMAND_NAMES
