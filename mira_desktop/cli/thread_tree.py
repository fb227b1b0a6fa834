"""The conversation-tree parts of ``mira-desktop thread`` (issue 4):
``thread show ID --branch MESSAGE_ID`` shows another branch without switching
(root → that message → its most recently created descendants), and
``thread switch ID MESSAGE_ID`` makes that branch the thread's active one,
and ``thread fork ID MESSAGE_ID [--title TITLE]`` copies the branch down to
that message into a new thread (the window's "Branch into a new chat"; with
``--json``: ``{"thread_id", "title", "forked_from", "messages"}``).
``thread_cmd`` registers these next to its own actions and hands them over."""

from __future__ import annotations

import argparse
import logging

from ..bootstrap import Services
from ..core.models import Message
from .output import print_json

log = logging.getLogger(__name__)

ACTIONS = frozenset({"switch", "fork"})


def add_show_flags(show: argparse.ArgumentParser) -> None:
    show.add_argument(
        "--branch",
        metavar="MESSAGE_ID",
        help="show the branch through this message instead of the active one",
    )


def register_actions(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    switch = sub.add_parser(
        "switch", help="make the branch through a message the thread's active branch"
    )
    switch.add_argument("id")
    switch.add_argument("message_id", metavar="MESSAGE_ID")
    switch.add_argument("--json", action="store_true")
    fork = sub.add_parser(
        "fork", help="copy the branch down to a message into a new thread (the rest stays)"
    )
    fork.add_argument("id")
    fork.add_argument("message_id", metavar="MESSAGE_ID")
    fork.add_argument("--title", help='default: "Branch · " and the thread\'s title')
    fork.add_argument("--json", action="store_true")


def heading_suffix(message: Message) -> str:
    """What follows a message's heading: " ‹ 2/3 ›" when it has versions, then
    its id (what --edit, --regenerate, --branch and switch take)."""
    versions = ""
    if message.sibling_count > 1:
        versions = f" ‹ {message.sibling_index + 1}/{message.sibling_count} ›"
    return f"{versions}  · {message.id}"


async def show_messages(services: Services, args: argparse.Namespace) -> list[Message]:
    """The messages ``thread show`` prints: the active branch, or ``--branch``'s."""
    if getattr(args, "branch", None):
        return await services.conversation.branch_through(args.id, args.branch)
    return await services.conversation.active_branch(args.id)


async def run_action(services: Services, args: argparse.Namespace) -> int:
    from .thread_cmd import message_json

    if args.thread_command == "fork":
        return await _fork(services, args)
    messages = await services.conversation.switch_branch(args.id, args.message_id)
    leaf = messages[-1].id if messages else None
    if args.json:
        print_json(
            {
                "thread_id": args.id,
                "active_leaf_id": leaf,
                "messages": [message_json(m) for m in messages],
            }
        )
        return 0
    print(f"Thread {args.id} now shows the branch through {args.message_id} (leaf {leaf}).")
    return 0


async def _fork(services: Services, args: argparse.Namespace) -> int:
    copy = await services.conversation.branch_into_new_thread(args.id, args.message_id, args.title)
    messages = await services.conversation.active_branch(copy.id)
    if args.json:
        print_json(
            {
                "thread_id": copy.id,
                "title": copy.title,
                "forked_from": args.id,
                "messages": len(messages),
            }
        )
        return 0
    print(f"Forked {len(messages)} message(s) into thread {copy.id} ({copy.title}).")
    return 0
