"""``mira-desktop export THREAD_ID... | --all [--format md|html|json|zip]
[--inner md|html|json] [--out PATH] [--json]``.

* md / html / json, one thread, no ``--out``: the export is printed on stdout.
* ``--out FILE``: written there (replaced); ``--out DIR``: a file named after
  each thread inside (several threads need a folder, or ``--format zip``).
* zip: one file per thread (``--inner``, Markdown by default) in
  ``mira-export-{YYYY-MM-DD}.zip`` in the current folder (``-2``, ``-3``… if
  taken), or at ``--out`` (a file, or a folder to put that name in).
  Progress goes to stderr when it is a terminal; Ctrl+C leaves no ZIP.
* ``--all``: every thread not in the trash (archived ones included).
* ``--json``: a summary object instead of the plain lines (files written):
  ``{"format", "files"}``, for a zip ``{"path", "exported", …, "format",
  "inner"}``. Without ``--out`` nothing is written, so the summary carries
  the export itself: ``{"format", "thread_id", "files": [], "content"}``
  (``content`` the text ``export ID`` prints, JSON or not; ``--format
  json`` alone prints the JSON export document).
* A folder that cannot be made or a file that cannot be written is an error
  naming it (exit 1)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ..bootstrap import Services
from ..core.errors import ConfigError, StorageError
from ..services.export import ExportProgress
from ..services.export.files import free_path
from .output import print_json

log = logging.getLogger(__name__)

NAME = "export"
FORMATS = ("md", "html", "json", "zip")
INNER = ("md", "html", "json")


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    export = commands.add_parser(
        "export", help="export threads as Markdown, HTML, JSON or a ZIP of them"
    )
    export.add_argument("ids", nargs="*", metavar="THREAD_ID", help="threads to export")
    export.add_argument("--all", action="store_true", help="every thread not in the trash")
    export.add_argument("--format", choices=FORMATS, default="md", help="default: md")
    export.add_argument("--inner", choices=INNER, help="format of the files in a zip (default md)")
    export.add_argument("--out", metavar="PATH", help="file or folder to write to")
    export.add_argument("--json", action="store_true", help="print a JSON summary")


async def _thread_ids(services: Services, args: argparse.Namespace) -> list[str]:
    if args.all and args.ids:
        raise ConfigError("Give thread ids or --all, not both.")
    if args.all:
        ids = await services.exports.all_thread_ids()
        if not ids:
            raise ConfigError("There are no threads to export.")
        return ids
    if not args.ids:
        raise ConfigError(
            "Name at least one thread to export.",
            hint="mira-desktop export THREAD_ID… (ids from `mira-desktop thread list`), or --all.",
        )
    return list(dict.fromkeys(args.ids))


async def run(services: Services, args: argparse.Namespace) -> int:
    if args.inner and args.format != "zip":
        raise ConfigError("--inner is for --format zip.")
    ids = await _thread_ids(services, args)
    if args.format == "zip":
        return await _zip(services, args, ids)
    return await _files(services, args, ids)


def _is_dir_target(text: str) -> bool:
    return Path(text).is_dir() or text.endswith(("/", os.sep))


async def _files(services: Services, args: argparse.Namespace, ids: list[str]) -> int:
    if args.out is None:
        if len(ids) > 1:
            raise ConfigError(
                "Several threads need --out DIR (one file each) or --format zip.",
                hint="e.g. mira-desktop export --all --format zip",
            )
        content = await services.exports.render(ids[0], args.format)
        if args.json:  # the summary, as with --out; it carries what was not written
            print_json(
                {"format": args.format, "thread_id": ids[0], "files": [], "content": content}
            )
            return 0
        sys.stdout.write(content)
        sys.stdout.flush()
        return 0
    out = Path(args.out).expanduser()
    if len(ids) > 1 or _is_dir_target(args.out):
        _make_folder(out)
    written = [await services.exports.export_thread(i, args.format, out) for i in ids]
    if args.json:
        print_json({"format": args.format, "files": [str(p) for p in written]})
    else:
        for path in written:
            print(path)
    return 0


def _make_folder(out: Path) -> None:
    """``--out DIR``, made with its parents: an error names it (as a file that
    cannot be written is named), never a traceback."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"Cannot create the folder {out}: {exc.strerror or exc}.",
            hint="Choose a folder you can write to, with free space.",
        ) from exc


def _zip_target(args: argparse.Namespace) -> Path:
    name = f"mira-export-{datetime.now().strftime('%Y-%m-%d')}.zip"
    if args.out is None:
        return free_path(Path.cwd(), name)
    out = Path(args.out).expanduser()
    if _is_dir_target(args.out):
        _make_folder(out)
        return free_path(out, name)
    if not out.parent.is_dir():
        raise ConfigError(f"The folder {out.parent} does not exist.")
    return out


def _progress_printer() -> Callable[[ExportProgress], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(event: ExportProgress) -> None:
        end = "\n" if event.done == event.total else ""
        sys.stderr.write(f"\rExporting {event.done}/{event.total}…{end}")
        sys.stderr.flush()

    return show


async def _zip(services: Services, args: argparse.Namespace, ids: list[str]) -> int:
    target = _zip_target(args)
    result = await services.exports.export_zip(
        ids,
        target,
        inner=args.inner or "md",
        progress=_progress_printer(),
    )
    if args.json:
        print_json({**result.to_dict(), "format": "zip", "inner": args.inner or "md"})
    else:
        print(f"Exported {result.exported} thread(s) to {result.path}")
    return 0
