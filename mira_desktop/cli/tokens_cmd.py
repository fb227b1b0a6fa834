"""``mira-desktop tokens ID``: the context meter of a thread as JSON —
``current_tokens`` (what the next request would hold, counted offline with
tiktoken), ``peak_tokens``, ``context_window``, ``remaining`` and ``share``
(the last three ``null`` when the model's window is not set). ``--draft TEXT``
counts a message being written as well."""

from __future__ import annotations

import argparse

from ..bootstrap import Services
from .output import print_json

NAME = "tokens"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    tokens = commands.add_parser("tokens", help="a thread's context usage (JSON)")
    tokens.add_argument("id", help="thread id")
    tokens.add_argument("--draft", metavar="TEXT", default="", help="count this draft too")


async def run(services: Services, args: argparse.Namespace) -> int:
    await services.threads.get_thread(args.id)  # a clear error for an unknown thread
    meter = await services.meter.measure(args.id, args.draft)
    print_json(meter.to_dict())
    return 0
