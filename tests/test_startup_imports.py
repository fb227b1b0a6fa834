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

import pytest

from tests.support.fresh import json_of

REPO = Path(__file__).resolve().parents[1]
_json_of = json_of

#: Never needed before a model is called, a file attached or a thread exported.
HEAVY = ("httpx", "tiktoken", "pypdf", "docx", "openpyxl")


#: Modules of widgets the first frame (a new chat) does not show; each loads
#: when first used (see ``test_first_use_widgets_load_when_used``).
FIRST_USE_UI = (
    "mira_desktop.ui.composer.suggestion_popup",
    "mira_desktop.ui.timeline.message_editor",
    "mira_desktop.ui.timeline.row_widgets",
    "mira_desktop.ui.timeline.message_widget",
    "mira_desktop.ui.timeline.rich_text",
    "mira_desktop.ui.timeline.live_markdown",
    "mira_desktop.ui.timeline.markdown",
    "mira_desktop.ui.timeline.thinking_card",
    "mira_desktop.ui.timeline.user_bubble",
    "mira_desktop.ui.timeline.system_card",
    "mira_desktop.ui.kb.sources_widget",
    "mira_desktop.ui.kb.citations",
    "html",
)


def _loaded(code: str, names: list[str], tmp_path: Path) -> dict[str, bool]:
    """Which of ``names`` are in ``sys.modules`` after running ``code``."""
    script = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json, sys
        print(json.dumps({{n: n in sys.modules for n in {names!r}}}))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MIRA_DATA_DIR": str(tmp_path / "data")}
    return _json_of(script, env=env)


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


def test_opening_a_data_folder_lets_worker_threads_have_the_gil_promptly(tmp_path: Path) -> None:
    """The database thread's writes wait for the GIL between SQLite calls;
    ``build_services`` shortens Python's 5 ms switch interval for them."""
    script = textwrap.dedent(
        f"""
        import json, sys
        from pathlib import Path
        before = sys.getswitchinterval()
        from mira_desktop.bootstrap import build_services
        from mira_desktop.gil import SWITCH_INTERVAL_S
        services = build_services(Path({str(tmp_path / "d")!r}))
        services.store.close()
        print(json.dumps([before, sys.getswitchinterval(), SWITCH_INTERVAL_S]))
        """
    )
    before, after, wanted = _json_of(script)
    assert before == 0.005 and after == wanted <= 0.001


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
    the window without search's value types and SQL, uuid, httpx, tiktoken, the readers' libraries, the CLI command
    modules, the settings and search dialogs, the single-instance socket, the
    export and import services (the thread menu's actions import them when
    used), printing (QtPrintSupport), the knowledge-base service stack (the
    header's picker lists the bases from their store) or the translation
    compiler (only a checkout without a fresh ``.qm`` compiles), nor markdown-it
    and pygments (the timeline imports them on first render; its warm-up runs
    after the first frame)."""
    names = [
        *HEAVY,
        "importlib.metadata",
        "mira_desktop.cli.chat_cmd",
        "mira_desktop.ui.dialogs.settings_dialog",
        "mira_desktop.ui.dialogs.workspace_dialog",
        "mira_desktop.ui.search.search_dialog",
        "mira_desktop.ui.single_instance",
        "PySide6.QtNetwork",
        "mira_desktop.services.export",
        "mira_desktop.services.importers",
        "mira_desktop.services.kb.manager",
        "mira_desktop.services.kb.retrieval",
        "mira_desktop.services.kb.ingest",
        "mira_desktop.ui.export.print_preview",
        "mira_desktop.ui.kb.kb_manager",
        "PySide6.QtPrintSupport",
        "mira_desktop.ui.ts_compiler",
        "xml.etree.ElementTree",
        # the timeline renders markdown on first use; its warm-up waits ~1.5 s
        "markdown_it",
        "pygments",
        # search's value types and SQL load with the first search (history_store)
        "mira_desktop.core.search",
        "mira_desktop.storage.search_sql",
        # ids are formatted without uuid (and platform); media files import it to write
        "uuid",
        "platform",
        # built on first use: the composer's @ and / popups, the inline message
        # editor, and the row widgets (a new chat shows no row: rich text,
        # markdown, the Thinking card, sources load with a thread's first row)
        *FIRST_USE_UI,
        # the batch export and import progress dialogs load with their first use,
        # a thread's right-click menu with the first right-click
        "mira_desktop.ui.export.progress_dialog",
        "mira_desktop.ui.sidebar.thread_menu",
        # ingestion reports, search hits, sources and the RAG context: the
        # picker's statistics need only the bases' types of core.knowledge
        "mira_desktop.core.knowledge_results",
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


#: Qt classes the window uses only in dialogs (or, for the paths, in a
#: translated language and a save dialog): PySide6 creates a class (and all its
#: enums) on first access, so none is touched before the picture.
DIALOG_CLASSES = {
    "QtWidgets": ["QDialog", "QMessageBox", "QFileDialog", "QInputDialog", "QProgressDialog"],
    "QtGui": ["QDesktopServices"],
    "QtCore": ["QUrl", "QStandardPaths", "QLibraryInfo"],
}


def test_a_screenshot_launch_creates_no_dialog_classes(tmp_path: Path) -> None:
    """Message boxes, file, input and progress dialogs (and ``QDesktopServices``)
    are imported where they are opened, not at the top of the window's modules."""
    done = _launch(
        f"""
        import json
        from mira_desktop.app import main

        rc = main(["--data-dir", {str(tmp_path / "d")!r}, "--screenshot", {str(tmp_path / "s.png")!r}])
        assert rc == 0, rc
        import PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets

        created = []
        for module, names in {DIALOG_CLASSES!r}.items():
            members = vars(getattr(PySide6, module))
            created += [name for name in names if name in members]
        print(json.dumps(created))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_pyside_module_check_reads_bytes_with_pysides_answers(tmp_path: Path) -> None:
    """``ui.pyside_imports.install`` swaps PySide6's per-import source check
    (``inspect.getsource``) for a read of the file's bytes, once; the answers
    are PySide6's own for modules with and without "PySide6" in their source,
    built-in and extension modules, and a module whose file is gone."""
    done = _launch(
        """
        import json, sys, types
        from mira_desktop.ui import pyside_imports

        assert pyside_imports.install() and pyside_imports.install()
        feature = sys.modules["shibokensupport.feature"]
        check = feature._mod_uses_pyside
        original = check.__wrapped__
        assert getattr(check, "_mira_bytes_check") and not hasattr(original, "_mira_bytes_check")
        import json as plain, _socket, mira_desktop.ui.theme as qt_user
        gone = types.ModuleType("gone")
        gone.__file__ = "/nonexistent/gone.py"
        modules = [plain, _socket, sys, qt_user, pyside_imports, gone]
        print(json.dumps([[check(m), original(m)] for m in modules]))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    assert [ours for ours, _ in answers] == [False, False, False, True, True, False]
    assert all(ours == theirs for ours, theirs in answers), answers


def test_knowledge_results_load_through_core_knowledge() -> None:
    """``core.knowledge`` names every result type in ``__all__`` and hands out
    the classes of ``core.knowledge_results`` (one class each, not copies)."""
    import importlib

    knowledge = importlib.import_module("mira_desktop.core.knowledge")
    results = importlib.import_module("mira_desktop.core.knowledge_results")
    lazy = knowledge._RESULTS
    assert lazy <= set(knowledge.__all__)
    for name in knowledge.__all__:
        value = getattr(knowledge, name)
        if name in lazy:
            assert value is getattr(results, name), name
    public = {
        n
        for n, v in vars(results).items()
        if not n.startswith("_")
        and (
            getattr(v, "__module__", "") == results.__name__ or (n.isupper() and isinstance(v, str))
        )
    }
    assert public == set(lazy)
    from mira_desktop.core.knowledge import RagOutcome, Source

    assert Source.from_data(Source(1, "d", "p", {}, "s", "c", 0.5).to_data()).number == 1
    assert RagOutcome("answer") is RagOutcome.ANSWER


def test_command_names_match_the_command_modules() -> None:
    """The window's launch tells commands from files by ``COMMAND_NAMES``
    without importing the modules; both lists must agree."""
    from mira_desktop.cli.parser import COMMAND_NAMES, command_modules

    assert tuple(module.NAME for module in command_modules()) == COMMAND_NAMES


def test_a_command_line_run_loads_its_own_command_only(tmp_path: Path) -> None:
    """``mira-desktop thread list`` parses and runs with the thread command's
    module alone (every command's imports cost ~0.15 s a run); a mistyped
    command or help still lists them all."""
    others = [f"mira_desktop.cli.{name}_cmd" for name in ("chat", "export", "kb", "transcribe")]
    loaded = _loaded(
        f"""
        import contextlib, io
        from mira_desktop.app import main

        with contextlib.redirect_stdout(io.StringIO()):
            rc = main(["--data-dir", {str(tmp_path / "d")!r}, "thread", "list"])
        assert rc == 0, rc
        """,
        ["mira_desktop.cli.thread_cmd", *others],
        tmp_path,
    )
    assert loaded == {"mira_desktop.cli.thread_cmd": True, **dict.fromkeys(others, False)}
    from mira_desktop.cli.parser import parse_arguments

    with pytest.raises(SystemExit):
        parse_arguments(["thred", "list"])


def _launch(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_screenshot_launch_ends_the_process_after_closing_the_database(
    tmp_path: Path,
) -> None:
    """As the program's own entry (``main()`` without ``argv``), a ``--screenshot``
    launch ends the process right after its clean shut-down, skipping the
    interpreter's and Qt's teardown: the exit code is kept, the PNG is written,
    the database is closed (no WAL left, intact) and the log is flushed.
    PySide6's exit handler, which deletes the QApplication and every widget,
    does not run either."""
    data, shot = tmp_path / "d", tmp_path / "shot.png"
    code = f"""
        import sys
        from PySide6.QtWidgets import QApplication

        class Finalised:
            def __del__(self):
                print("finalised", flush=True)

        keep = Finalised()  # freed only by the interpreter's teardown
        app = QApplication([])  # the launch uses it
        app.destroyed.connect(lambda: print("app deleted", flush=True))
        sys.argv = ["mira-desktop", "--data-dir", {str(data)!r}, "--screenshot", {{shot!r}}]
        from mira_desktop.app import main

        code = main()
        print("returned", code, flush=True)
        """
    done = _launch(code.format(shot=str(shot)), tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "returned" not in done.stdout and "finalised" not in done.stdout
    assert "app deleted" not in done.stdout
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    wal = data / "mira.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    import sqlite3

    with sqlite3.connect(data / "mira.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    log = (data / "logs" / "mira.log").read_text(encoding="utf-8")
    assert "theme" in log and "ERROR" not in log

    # a failed screenshot (the path is a folder) still exits with its code, and
    # its last log line is on disk
    failed = _launch(code.format(shot=str(tmp_path)), tmp_path)
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert "returned" not in failed.stdout
    assert "could not write the screenshot" in (data / "logs" / "mira.log").read_text("utf-8")


def test_a_screenshot_launch_called_with_argv_returns(tmp_path: Path) -> None:
    """``main(argv)`` (a caller inside a larger program, tests) gets the exit
    code back and the process goes on."""
    done = _launch(
        f"""
        from mira_desktop.app import main

        code = main(["--data-dir", {str(tmp_path / "d")!r}, "--screenshot", {str(tmp_path / "s.png")!r}])
        print("returned", code, flush=True)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "returned 0" in done.stdout


def test_the_first_frame_waits_for_no_chat_or_knowledge_base_stack(tmp_path: Path) -> None:
    """Until the window's ``start()`` has loaded what its first frame shows (it
    is shown after that), neither the chat service's stack (built on the first
    send; start-up recovery goes through the store), the summaries' (their
    listener waits for the service), the knowledge-base value types and store
    (the header's picker lists the bases after the first frame) nor the
    start-up chores' services (they run after it, and before the screenshot is
    taken) are imported."""
    names = [
        "mira_desktop.services.chat",
        "mira_desktop.services.regenerate",
        "mira_desktop.services.summary",
        "mira_desktop.services.compaction",
        "mira_desktop.core.knowledge",
        "mira_desktop.storage.kb_store",
        "mira_desktop.services.kb.rag",
        "mira_desktop.services.attachments",
        "mira_desktop.services.readers",
        # stream events load with the first answer; the timeline takes the
        # compaction kind from core.message_kinds (core.context: with the meter)
        "mira_desktop.core.events",
        "mira_desktop.core.context",
    ]
    loaded = _loaded(
        f"""
        import sys
        from mira_desktop.ui.window.main_window import MainWindow

        start = MainWindow.start
        at_first_frame = {{}}

        async def recording_start(self, thread_id=None):
            await start(self, thread_id)
            at_first_frame.update({{n: n in sys.modules for n in {names!r}}})
            at_first_frame["picker"] = self.header.kb_picker.text()

        MainWindow.start = recording_start
        from mira_desktop.app import main

        rc = main(["--data-dir", {str(tmp_path / "w")!r}, "--screenshot", {str(tmp_path / "w.png")!r}])
        assert rc == 0, rc
        print(at_first_frame)
        for name in {names!r}:
            assert not at_first_frame[name], name
        assert at_first_frame["picker"] == "No knowledge base", at_first_frame
        """,
        ["mira_desktop.storage.kb_store", "mira_desktop.services.attachments"],
        tmp_path,
    )
    # the bases were listed and the chores ran after the frame, before the picture
    assert loaded == {
        "mira_desktop.storage.kb_store": True,
        "mira_desktop.services.attachments": True,
    }


# ---- what start-up defers, in the services themselves ---------------------------


async def test_a_deferred_service_is_built_on_its_first_use(tmp_path: Path) -> None:
    from mira_desktop.bootstrap import build_services

    services = build_services(tmp_path / "d")
    try:
        stand_in = services.deferred("roles")
        assert "roles" not in services.built
        assert await stand_in.list() == await services.roles.list()
        assert "roles" in services.built
        assert services.deferred("roles") is services.roles  # once built: the service
    finally:
        await services.aclose()


async def test_listeners_wait_for_their_service(tmp_path: Path) -> None:
    """``on_built`` calls back once, when the service is first built (or at once
    when it exists, or when a copy is given one)."""
    import dataclasses

    from mira_desktop.bootstrap import build_services

    services = build_services(tmp_path / "d")
    try:
        seen: list[object] = []
        services.on_built("summaries", seen.append)
        services.on_built("settings", seen.append)  # built? not yet either
        assert seen == []
        given = object()
        copy = dataclasses.replace(services, settings=given)
        assert seen == [given]  # the copy was given the service
        summaries = services.summaries  # builds the settings service too
        assert seen == [given, services.settings, summaries]
        assert services.summaries is summaries and len(seen) == 3  # once
        services.on_built("summaries", seen.append)
        assert seen[-1] is summaries  # already built: called at once
        assert "summaries" not in copy.built and copy.when_built == {"summaries": [seen.append]}
    finally:
        await services.aclose()


async def test_start_up_recovery_does_not_build_the_chat_service(tmp_path: Path) -> None:
    import socket
    import subprocess as sp

    from mira_desktop.bootstrap import build_services

    services = build_services(tmp_path / "d")
    gone = sp.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stamp = "2026-01-01T00:00:00.000Z"

    def insert(db: object) -> None:
        conn = db.conn  # type: ignore[attr-defined]
        conn.execute(
            "INSERT INTO threads (id, title, workspace_id, created_at, updated_at) VALUES"
            " ('t1', 'T', (SELECT id FROM workspaces WHERE is_default = 1), ?, ?)",
            (stamp, stamp),
        )
        conn.executemany(
            "INSERT INTO messages (id, thread_id, role, status, owner, created_at, updated_at)"
            " VALUES (?, 't1', 'assistant', 'streaming', ?, ?, ?)",
            [
                ("dead", f"{socket.gethostname()}:{gone.pid}:1", stamp, stamp),
                ("elsewhere", "another-host:1:1", stamp, stamp),
            ],
        )
        conn.commit()

    try:
        await services.store.worker.run(insert)
        assert await services.recover() == 1
        assert "chat" not in services.built
        rows = await services.store.worker.run(
            lambda db: db.conn.execute("SELECT id, status FROM messages ORDER BY id").fetchall()
        )
        assert [tuple(r) for r in rows] == [("dead", "stopped"), ("elsewhere", "streaming")]
    finally:
        await services.aclose()


def test_the_history_store_loads_no_search_stack(tmp_path: Path) -> None:
    """``HistoryStore`` imports search's value types and SQL on the first search;
    storage formats ids and names temporary files without importing uuid."""
    loaded = _loaded(
        "import mira_desktop.storage.history_store\nimport mira_desktop.storage.store\n",
        ["mira_desktop.core.search", "mira_desktop.storage.search_sql", "uuid"],
        tmp_path,
    )
    assert [name for name, present in loaded.items() if present] == []


def _top_level_imports(module: str) -> list[str]:
    """The modules ``module`` imports when it is imported (not in functions or
    under ``if TYPE_CHECKING``)."""
    import ast

    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def test_the_chat_controller_and_the_system_card_import_no_value_type_modules() -> None:
    """The chat controller imports the chat event types (15 frozen dataclasses)
    when its first run's events arrive, and the timeline's system card takes
    ``COMPACTION_KIND`` from ``core.message_kinds``, not from ``core.context``."""
    controller = _top_level_imports("mira_desktop/ui/controllers/chat_controller.py")
    assert not [name for name in controller if name.endswith("core.events")], controller
    card = _top_level_imports("mira_desktop/ui/timeline/system_card.py")
    assert not [name for name in card if name.endswith("core.context")], card
    assert "mira_desktop.core.message_kinds" in card
    from mira_desktop.core import context, message_kinds

    assert context.COMPACTION_KIND == message_kinds.COMPACTION_KIND == "compaction"


def test_new_ids_are_uuid7_strings() -> None:
    """``new_id`` formats its UUIDv7 without the uuid module, exactly as
    ``str(uuid.UUID(int=...))`` would, and ids sort by creation."""
    import uuid

    from mira_desktop.core.ids import new_id

    ids = [new_id() for _ in range(2000)]
    for value in ids:
        parsed = uuid.UUID(value)
        assert str(parsed) == value and parsed.version == 7
        assert parsed.variant == uuid.RFC_4122
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_first_use_widgets_load_when_used(tmp_path: Path) -> None:
    """The composer builds its popups on first access (the ``/`` menu opens from
    typing), the timeline imports its row widgets with its first row and the
    inline editor with the first edit; the popups' keys still reach them."""
    loaded = _loaded(
        """
        import sys
        from PySide6.QtCore import QEvent, Qt
        from PySide6.QtGui import QKeyEvent
        from PySide6.QtWidgets import QApplication
        from mira_desktop.core.models import Message, MessageRole, MessageStatus
        from mira_desktop.ui.composer.command_popup import CommandController
        from mira_desktop.ui.composer.composer_widget import ComposerWidget
        from mira_desktop.ui.timeline.timeline_view import TimelineView

        app = QApplication([])
        composer = ComposerWidget()
        view = TimelineView()
        view.resize(600, 400)
        seen = {}
        seen["popup module"] = "mira_desktop.ui.composer.suggestion_popup" in sys.modules
        commands = CommandController(
            composer.editor, lambda: composer.command_popup, lambda: [], lambda c: c.close()
        )
        composer.editor.setPlainText("hello")  # no command: nothing built
        seen["popup built"] = bool(composer._popups)
        composer.show()
        composer.editor.setPlainText("/com")
        popup = composer.command_popup
        seen["open"] = popup.is_open() and popup.payloads() == ["compact"]
        esc = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(composer.editor, esc)
        seen["closed by Esc"] = not popup.is_open()
        seen["rows before"] = "mira_desktop.ui.timeline.message_widget" in sys.modules
        stamp = "2026-01-01T00:00:00.000Z"
        view.set_messages(
            [
                Message(id="u", thread_id="t", role=MessageRole.USER, text="hi",
                        status=MessageStatus.COMPLETE, created_at=stamp, updated_at=stamp)
            ]
        )
        view.show()
        app.processEvents()
        seen["rows after"] = "mira_desktop.ui.timeline.message_widget" in sys.modules
        seen["editor before"] = "mira_desktop.ui.timeline.message_editor" in sys.modules
        view.set_actions_enabled(True)
        view.begin_edit("u")
        seen["editor after"] = type(view.message_widget("u")).__name__ == "UserEditWidget"
        print(seen, file=sys.stderr)
        assert seen == {
            "popup module": False, "popup built": False, "open": True, "closed by Esc": True,
            "rows before": False, "rows after": True, "editor before": False,
            "editor after": True,
        }, seen
        """,
        ["mira_desktop.ui.timeline.message_editor"],
        tmp_path,
    )
    assert loaded == {"mira_desktop.ui.timeline.message_editor": True}


# ---- the dataclasses' compiled methods, kept between runs -------------------------


_DEFINE = """
import dataclasses, json, sys
from mira_desktop import dataclass_cache as code_cache

sys.dont_write_bytecode = False
cache = code_cache.install(code_cache.Path(sys.argv[1]))
assert code_cache.install() is None  # once per process


@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 2
    tags: tuple[str, ...] = ()


p = Point(1, tags=("a",))
try:
    p.x = 5
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(json.dumps({
    "compiled": cache.compiled, "saved": len(cache.saved), "repr": repr(p),
    "eq": p == Point(1, 2, ("a",)), "hash": hash(p) == hash(Point(1, 2, ("a",))),
    "frozen": frozen, "fields": [f.name for f in dataclasses.fields(p)],
}))
"""


def _define(cache_file: Path, tmp_path: Path) -> dict[str, object]:
    return _json_of(_DEFINE, str(cache_file))


def test_dataclass_methods_are_compiled_once_and_reused(tmp_path: Path) -> None:
    """The first run compiles a dataclass's methods and writes them at exit;
    the next builds the same class from the cached code (nothing compiled);
    a damaged file is ignored and rewritten."""
    cache_file = tmp_path / "pyc" / "dataclass-methods.marshal"
    first = _define(cache_file, tmp_path)
    assert first["compiled"] == 6 and first["saved"] == 0  # init repr eq hash setattr delattr
    assert cache_file.stat().st_size > 0
    second = _define(cache_file, tmp_path)
    assert second["compiled"] == 0 and second["saved"] == 6
    same = {k: v for k, v in first.items() if k not in ("compiled", "saved")}
    assert {k: v for k, v in second.items() if k not in ("compiled", "saved")} == same
    assert same["repr"] == "Point(x=1, y=2, tags=('a',))" and same["frozen"] and same["eq"]
    cache_file.write_bytes(cache_file.read_bytes()[:40])  # truncated
    assert _define(cache_file, tmp_path)["compiled"] == 6
    assert _define(cache_file, tmp_path)["compiled"] == 0


def test_the_code_cache_writes_nothing_without_byte_code(tmp_path: Path) -> None:
    from mira_desktop.dataclass_cache import CodeCache

    cache = CodeCache(tmp_path / "c.marshal")
    namespace: dict[str, object] = {}
    cache.exec("def f():\n    return 41 + 1\n", namespace)
    assert cache.compiled == 1 and namespace["f"]() == 42  # type: ignore[operator]
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        cache.save()
    finally:
        sys.dont_write_bytecode = saved
    assert not (tmp_path / "c.marshal").exists()


def test_the_entry_point_installs_the_cache_before_any_dataclass(tmp_path: Path) -> None:
    """``import mira_desktop.app`` defines no dataclass (core.models loads in
    ``main``), and a window launch runs with the cache installed."""
    loaded = _loaded(
        f"""
        import dataclasses, sys
        import mira_desktop.app
        before = "mira_desktop.core.models" in sys.modules
        rc = mira_desktop.app.main(["--data-dir", {str(tmp_path / "w")!r}, "--screenshot", {str(tmp_path / "w.png")!r}])
        assert rc == 0 and not before, (rc, before)
        assert type(dataclasses.exec.__self__).__name__ == "CodeCache"
        """,
        ["mira_desktop.core.models"],
        tmp_path,
    )
    assert loaded == {"mira_desktop.core.models": True}
