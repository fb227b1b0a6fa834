"""``mira-desktop thread list|show``."""

from __future__ import annotations

import argparse
from typing import Any

from ..bootstrap import Services
from ..core.models import Message
from . import agent_cmd, thread_context, thread_history, thread_media, thread_tree
from .output import print_json, print_table

NAME = "thread"


def message_json(message: Message) -> dict[str, Any]:
    return {
        "id": message.id,
        "parent_id": message.parent_id,
        "role": str(message.role),
        "status": str(message.status),
        "text": message.text,
        "thinking": message.thinking,
        "usage": message.usage.to_dict() if message.usage else None,
        "error": message.error,
        "model": message.model,
        "provider": message.provider,
        "created_at": message.created_at,
        "sibling_index": message.sibling_index,
        "sibling_count": message.sibling_count,
        "data": message.data,
    }


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    thread = commands.add_parser("thread", help="list and show threads")
    sub = thread.add_subparsers(dest="thread_command", metavar="ACTION", required=True)
    lst = sub.add_parser("list", help="list threads, newest first")
    lst.add_argument("--json", action="store_true")
    lst.add_argument("--limit", type=int, default=100)
    thread_history.add_list_flags(lst)
    show = sub.add_parser("show", help="show a thread's active branch")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    thread_tree.add_show_flags(show)
    thread_history.register_actions(sub)
    thread_tree.register_actions(sub)
    thread_context.register_actions(sub)
    thread_media.register_actions(sub)
    agent_cmd.register_thread_action(sub)


async def run(services: Services, args: argparse.Namespace) -> int:
    if args.thread_command in thread_history.ACTIONS:
        return await thread_history.run_action(services, args)
    if args.thread_command in thread_tree.ACTIONS:
        return await thread_tree.run_action(services, args)
    if args.thread_command in thread_context.ACTIONS:
        return await thread_context.run_action(services, args)
    if args.thread_command in thread_media.ACTIONS:
        return await thread_media.run_action(services, args)
    if args.thread_command in agent_cmd.THREAD_ACTIONS:
        return await agent_cmd.run_thread_action(services, args)
    if args.thread_command == "list":
        return await _list(services, args)
    return await _show(services, args)


async def _list(services: Services, args: argparse.Namespace) -> int:
    threads = await thread_history.list_threads(services, args)
    if args.json:
        print_json(
            [
                {
                    "id": t.id,
                    "title": t.title,
                    "model": t.model,
                    "pinned": t.pinned,
                    "created_at": t.created_at,
                    "updated_at": t.updated_at,
                    "workspace_id": t.workspace_id,
                    "archived": t.archived,
                    "deleted_at": t.deleted_at,
                }
                for t in threads
            ]
        )
        return 0
    if not threads:
        print(
            thread_history.empty_view_text(args)
            or "No threads yet. Start one with: mira-desktop chat --provider NAME --model MODEL Hello"
        )
        return 0
    print_table(["ID", "UPDATED", "TITLE"], [[t.id, t.updated_at[:16], t.title] for t in threads])
    return 0


async def _show(services: Services, args: argparse.Namespace) -> int:
    thread = await services.threads.get_thread(args.id)
    messages = await thread_tree.show_messages(services, args)
    if args.json:
        print_json(
            {
                "id": thread.id,
                "title": thread.title,
                "workspace_id": thread.workspace_id,
                "model": thread.model,
                "created_at": thread.created_at,
                "updated_at": thread.updated_at,
                "active_leaf_id": thread.active_leaf_id,
                "messages": [message_json(m) for m in messages],
            }
        )
        return 0
    print(f"# {thread.title}")
    for message in messages:
        status = "" if str(message.status) == "complete" else f" [{message.status}]"
        who = "You" if str(message.role) == "user" else (message.model or "assistant")
        if str(message.role) == "system-card":
            who = str((message.data or {}).get("title") or "Card")
        print(f"\n## {who}{status}{thread_tree.heading_suffix(message)}\n")
        if message.thinking:
            print(f"> (thinking) {message.thinking[:200]}")
        print(message.text)
        if message.error:
            print(f"\n(error: {message.error.get('message')})")
    return 0
