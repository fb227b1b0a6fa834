"""``mira-desktop workspace add|list|rename|set|delete``.

``delete NAME`` without ``--yes`` only says how many threads the workspace
holds and that they would go to the trash (of Mira BASE, restorable there),
then exits 1 without deleting; with ``--yes`` it deletes."""

from __future__ import annotations

import argparse
import logging
import shlex

from ..bootstrap import Services
from ..core.models import Workspace
from .output import print_json, print_table

log = logging.getLogger(__name__)

NAME = "workspace"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    workspace = commands.add_parser("workspace", help="organise threads in workspaces")
    sub = workspace.add_subparsers(dest="workspace_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="create a workspace")
    add.add_argument("name")
    add.add_argument("--color", metavar="C", help="#rrggbb, #rgb or a name (red, blue, …)")
    add.add_argument("--root", metavar="DIR", help="the folder the agent and @-search see")
    lst = sub.add_parser("list", help="list workspaces")
    lst.add_argument("--json", action="store_true")
    rename = sub.add_parser("rename", help="rename a workspace")
    rename.add_argument("name")
    rename.add_argument("new_name", metavar="NEW")
    edit = sub.add_parser("set", help="change a workspace's colour or root folder")
    edit.add_argument("name")
    edit.add_argument("--color", metavar="C")
    root = edit.add_mutually_exclusive_group()
    root.add_argument("--root", metavar="DIR")
    root.add_argument("--no-root", action="store_true", help="forget the root folder")
    delete = sub.add_parser("delete", help="delete a workspace (its threads go to the trash)")
    delete.add_argument("name")
    delete.add_argument("--yes", action="store_true", help="really delete")


async def run(services: Services, args: argparse.Namespace) -> int:
    action = args.workspace_command
    workspaces = services.workspaces
    if action == "list":
        return await _list(services, args)
    if action == "delete":
        return await _delete(services, args)
    if action == "add":
        created = await workspaces.create(args.name, color=args.color, root_dir=args.root)
        print(f"Added workspace {created.name} ({created.color}).")
        return 0
    current = await workspaces.find(args.name)
    if action == "rename":
        renamed = await workspaces.rename(current.id, args.new_name)
        print(f"Renamed workspace {current.name} to {renamed.name}.")
        return 0
    if args.color:
        current = await workspaces.set_color(current.id, args.color)
    if args.root or args.no_root:
        current = await workspaces.set_root_dir(current.id, None if args.no_root else args.root)
    print(f"{current.name}: colour {current.color}, root {current.root_dir or '(none)'}.")
    return 0


def _json(workspace: Workspace, threads: int) -> dict[str, object]:
    return {
        "id": workspace.id,
        "name": workspace.name,
        "color": workspace.color,
        "root_dir": workspace.root_dir,
        "is_default": workspace.is_default,
        "threads": threads,
    }


async def _list(services: Services, args: argparse.Namespace) -> int:
    listed = await services.workspaces.list_workspaces()
    counts = [await services.history.count_threads(w.id) for w in listed]
    if args.json:
        print_json([_json(w, n) for w, n in zip(listed, counts, strict=True)])
        return 0
    rows = [
        [w.name + (" (default)" if w.is_default else ""), w.color, str(n), w.root_dir or ""]
        for w, n in zip(listed, counts, strict=True)
    ]
    print_table(["NAME", "COLOR", "THREADS", "ROOT"], rows)
    return 0


async def _delete(services: Services, args: argparse.Namespace) -> int:
    workspace = await services.workspaces.find(args.name)
    count = await services.workspaces.workspace_thread_count(workspace.id)
    if not args.yes and not workspace.is_default:
        print(
            f"Workspace {workspace.name} holds {count} thread(s). Deleting it moves them to"
            " the trash (into Mira BASE, where they can be restored)."
        )
        print(
            f"Run again with --yes to delete it: mira-desktop workspace delete {shlex.quote(args.name)} --yes"
        )
        return 1
    moved = await services.workspaces.delete(workspace.id)
    print(f"Deleted workspace {workspace.name}; {moved} thread(s) moved to the trash.")
    return 0
