"""``mira-desktop import FILE [--format mira|chatgpt] [--workspace NAME] [--json]``.

Imports a Mira JSON export (or a ZIP of them) or ChatGPT's
``conversations.json`` (or ChatGPT's export ZIP); the kind is detected when
``--format`` is left out. Prints each imported thread (id, message count,
title), each ChatGPT conversation imported before that got new messages (it
went on in ChatGPT: id, new messages, title) and each skipped one with the
reason; ``--json`` prints one object ``{"format", "imported": [{"id",
"title", "messages", "source_ref", "original_id"}], "skipped": [{"title",
"reason", "source_ref"}], "files_restored", "files_missing", "updated":
[{"id", "title", "messages", "source_ref"}], "new_messages"}`` — attachments'
files put back from a Mira ZIP, and those the file did not carry (a JSON file
carries none; their names are kept); ``updated[].messages`` counts the new
messages only. A malformed file is an error (exit 1) and imports nothing."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from ..bootstrap import Services
from ..services.importers import ImportProgress
from .output import print_json, print_table

log = logging.getLogger(__name__)

NAME = "import"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    imp = commands.add_parser(
        "import", help="import a Mira JSON export or ChatGPT's conversations.json"
    )
    imp.add_argument("file", metavar="FILE")
    imp.add_argument("--format", choices=["mira", "chatgpt"], help="default: detect")
    imp.add_argument("--workspace", metavar="NAME", help="put every imported thread here")
    imp.add_argument("--json", action="store_true")


def _progress_printer() -> Callable[[ImportProgress], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(event: ImportProgress) -> None:
        sys.stderr.write(f"\r{event.stage.capitalize()} {event.done}/{event.total}…\033[K")
        if event.stage == "writing" and event.done == event.total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


async def run(services: Services, args: argparse.Namespace) -> int:
    workspace_id = None
    if args.workspace:
        workspace_id = (await services.workspaces.find(args.workspace)).id
    report = await services.imports.import_file(
        Path(args.file).expanduser(),
        format=args.format,
        workspace_id=workspace_id,
        progress=_progress_printer(),
    )
    if args.json:
        print_json(report.to_dict())
        return 0
    print(f"Imported {len(report.imported)} thread(s) from {args.file} ({report.format}).")
    if report.imported:
        print_table(
            ["ID", "MESSAGES", "TITLE"],
            [[t.id, str(t.message_count), t.title] for t in report.imported],
        )
    if report.updated:
        print(
            f"Added {report.new_messages} new message(s) to {len(report.updated)} thread(s)"
            " imported before:"
        )
        print_table(
            ["ID", "NEW MESSAGES", "TITLE"],
            [[t.id, str(t.new_messages), t.title] for t in report.updated],
        )
    if report.skipped:
        print(f"Skipped {len(report.skipped)}:")
        for item in report.skipped:
            print(f"  {item.title} — {item.reason}")
    if report.files_restored:
        print(f"Restored {report.files_restored} attached file(s).")
    if report.files_missing:
        print(
            f"{report.files_missing} attached file(s) were not in {args.file};"
            " their names are kept (a ZIP export carries the files)."
        )
    return 0
