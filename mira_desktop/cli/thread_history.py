"""The history actions of ``mira-desktop thread`` (issue 5): ``rename``, ``pin``,
``unpin``, ``archive``, ``unarchive``, ``trash``, ``restore``, ``purge``, plus
``move`` and ``empty-trash``, and the view flags of ``thread list``
(``--archived``, ``--trash``, ``--workspace``). ``thread_cmd`` registers these
next to its own actions and hands them over here."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from ..bootstrap import Services
from ..core.history import ThreadView
from ..core.models import Thread
from .output import print_json

log = logging.getLogger(__name__)

_SIMPLE = {
    "pin": "pin a thread to the top of the sidebar",
    "unpin": "unpin a thread",
    "archive": "archive a thread (it leaves the sidebar; find it with list --archived)",
    "unarchive": "bring an archived thread back to the sidebar",
    "trash": "move a thread to the trash (restorable for trash.purge_days days)",
    "restore": "take a thread out of the trash",
}
ACTIONS = frozenset({*_SIMPLE, "rename", "purge", "move", "empty-trash"})


def add_list_flags(lst: argparse.ArgumentParser) -> None:
    """``thread list`` views: the archive, the trash, one workspace."""
    view = lst.add_mutually_exclusive_group()
    view.add_argument("--archived", action="store_true", help="list archived threads")
    view.add_argument("--trash", action="store_true", help="list threads in the trash")
    lst.add_argument("--workspace", metavar="NAME", help="only threads of this workspace")


def register_actions(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    rename = sub.add_parser("rename", help="rename a thread (automatic titles keep off it)")
    rename.add_argument("id")
    rename.add_argument("title", nargs="+", metavar="TITLE")
    rename.add_argument("--json", action="store_true")
    for name, text in _SIMPLE.items():
        action = sub.add_parser(name, help=text)
        action.add_argument("id")
        action.add_argument("--json", action="store_true")
    purge = sub.add_parser("purge", help="delete a thread in the trash for good")
    purge.add_argument("id")
    purge.add_argument("--force", action="store_true", help="purge even if it is not in the trash")
    move = sub.add_parser("move", help="move a thread to a workspace")
    move.add_argument("id")
    move.add_argument("workspace", metavar="WORKSPACE", help="workspace name")
    empty = sub.add_parser("empty-trash", help="delete every thread in the trash for good")
    empty.add_argument("--yes", action="store_true", help="really delete (else only count)")


async def list_threads(services: Services, args: argparse.Namespace) -> list[Thread]:
    """The threads ``thread list`` shows, honouring the view flags."""
    view = ThreadView.ACTIVE
    if getattr(args, "archived", False):
        view = ThreadView.ARCHIVED
    elif getattr(args, "trash", False):
        view = ThreadView.TRASH
    workspace_id = None
    if getattr(args, "workspace", None):
        workspace_id = (await services.workspaces.find(args.workspace)).id
    return await services.history.list_threads(0, args.limit, workspace_id, view)


def empty_view_text(args: argparse.Namespace) -> str | None:
    """What an empty ``thread list`` says for the archive, the trash or a workspace."""
    if getattr(args, "trash", False):
        return "The trash is empty."
    if getattr(args, "archived", False):
        return "No archived threads."
    if getattr(args, "workspace", None):
        return f"No threads in {args.workspace}."
    return None


def thread_json(thread: Thread) -> dict[str, Any]:
    return {
        "id": thread.id,
        "title": thread.title,
        "workspace_id": thread.workspace_id,
        "pinned": thread.pinned,
        "pin_order": thread.pin_order,
        "archived": thread.archived,
        "deleted_at": thread.deleted_at,
        "updated_at": thread.updated_at,
    }


async def run_action(services: Services, args: argparse.Namespace) -> int:
    action = args.thread_command
    history = services.history
    if action == "purge":
        return await _purge(services, args)
    if action == "move":
        return await _move(services, args)
    if action == "empty-trash":
        return await _empty_trash(services, args)
    if action == "rename":
        thread = await history.rename(args.id, " ".join(args.title))
        return _report(args, thread, f"Renamed to “{thread.title}”.")
    if action == "trash":
        await history.trash(args.id)
        thread = await services.threads.get_thread(args.id)
        hint = f" Restore it with: mira-desktop thread restore {thread.id}"
        return _report(args, thread, f"Moved “{thread.title}” to the trash.{hint}")
    methods = {
        "pin": (history.pin, "Pinned"),
        "unpin": (history.unpin, "Unpinned"),
        "archive": (history.archive, "Archived"),
        "unarchive": (history.unarchive, "Unarchived"),
        "restore": (history.restore, "Restored"),
    }
    method, verb = methods[action]
    thread = await method(args.id)
    return _report(args, thread, f"{verb} “{thread.title}”.")


def _report(args: argparse.Namespace, thread: Thread, text: str) -> int:
    if getattr(args, "json", False):
        print_json(thread_json(thread))
    else:
        print(text)
    return 0


async def _purge(services: Services, args: argparse.Namespace) -> int:
    thread = await services.threads.get_thread(args.id)
    await services.history.purge(args.id, force=args.force)
    print(f"Deleted “{thread.title}” for good.")
    return 0


async def _move(services: Services, args: argparse.Namespace) -> int:
    workspace = await services.workspaces.find(args.workspace)
    await services.workspaces.move_threads([args.id], workspace.id)
    print(f"Moved {args.id} to {workspace.name}.")
    return 0


async def _empty_trash(services: Services, args: argparse.Namespace) -> int:
    count = await services.history.count_threads(view=ThreadView.TRASH)
    if not args.yes:
        print(f"The trash holds {count} thread(s); they would be deleted for good.")
        print("Run again with --yes to empty it.")
        return 1
    purged = await services.history.empty_trash()
    print(f"Deleted {purged} thread(s) for good.")
    return 0
