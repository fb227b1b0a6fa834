"""The conversation-tree parts of ``mira-desktop thread`` (issue 4):
``thread show ID --branch MESSAGE_ID`` shows another branch without switching
(root → that message → its most recently created descendants), and
``thread switch ID MESSAGE_ID`` makes that branch the thread's active one.
``thread_cmd`` registers these next to its own actions and hands them over."""

from __future__ import annotations

import argparse
import logging

from ..bootstrap import Services
from ..core.models import Message
from .output import print_json

log = logging.getLogger(__name__)

ACTIONS = frozenset({"switch"})


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
