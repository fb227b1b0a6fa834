"""The context parts of ``mira-desktop thread`` (issue 7):

* ``thread summary ID`` prints the context summary with when it was updated
  and how many messages it lags behind; ``--generate`` makes a new one with the
  thread's model, ``--set TEXT`` saves one written by hand, ``--clear`` removes
  it.
* ``thread compact ID [--instructions TEXT]`` writes a "Context compressed"
  card (later requests replay only it and what follows), or says "Nothing to
  compact yet." — exit code 0 either way.

``thread_cmd`` registers these next to its own actions and hands them over."""

from __future__ import annotations

import argparse
import logging

from ..bootstrap import Services
from ..core.context import ContextSummary
from .output import print_json

log = logging.getLogger(__name__)

ACTIONS = frozenset({"summary", "compact"})


def register_actions(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    summary = sub.add_parser("summary", help="show, generate, set or clear the context summary")
    summary.add_argument("id")
    what = summary.add_mutually_exclusive_group()
    what.add_argument("--generate", action="store_true", help="summarise the thread with its model")
    what.add_argument("--set", metavar="TEXT", dest="set_text", help="save this summary")
    what.add_argument("--clear", action="store_true", help="remove the summary")
    summary.add_argument("--json", action="store_true")
    compact = sub.add_parser(
        "compact", help="compress the conversation so far into a checkpoint (/compact)"
    )
    compact.add_argument("id")
    compact.add_argument("--instructions", metavar="TEXT", help="what the summary should keep")
    compact.add_argument("--json", action="store_true")


async def run_action(services: Services, args: argparse.Namespace) -> int:
    if args.thread_command == "compact":
        return await _compact(services, args)
    return await _summary(services, args)


async def _summary(services: Services, args: argparse.Namespace) -> int:
    await services.threads.get_thread(args.id)  # a clear error for an unknown thread
    summaries = services.summaries
    if args.generate:
        summary: ContextSummary | None = await summaries.generate(args.id)
    elif args.set_text is not None:
        summary = await summaries.set(args.id, args.set_text)
    elif args.clear:
        await summaries.clear(args.id)
        summary = None
    else:
        summary = await summaries.get(args.id)
    if args.json:
        print_json(summary.to_dict() if summary else {"thread_id": args.id, "summary": None})
        return 0
    if args.clear:
        print(f"Cleared the context summary of thread {args.id}.")
    elif summary is None:
        print("This thread has no context summary. Make one with --generate or --set TEXT.")
    else:
        lag = "up to date" if summary.lag == 0 else f"{summary.lag} message(s) behind"
        print(f"Updated {summary.updated_at} · {lag}\n\n{summary.text}")
    return 0


async def _compact(services: Services, args: argparse.Namespace) -> int:
    result = await services.chat.compact(args.id, args.instructions)
    if args.json:
        print_json(result.to_dict())
    elif result.card is None:
        print(result.message)
    else:
        print(f"{result.message}\n\n{result.card.text}")
    return 0
