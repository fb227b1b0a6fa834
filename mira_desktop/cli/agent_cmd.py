"""``mira-desktop agent``: the agent's settings and its changes (PRODUCT.md §11).

* ``agent mode [manual|auto] [--json]`` — show or set the approval mode
  (manual, the default, asks before each write, edit and mutating command).
* ``agent developer [on|off] [--json]`` — developer mode: the agent may write
  anywhere in the workspace's ``.agent/`` (otherwise only its memory).
* ``agent search-url [URL | --clear] [--json]`` — the endpoint of the
  agent's ``web_search`` (an address with ``{query}`` answering JSON, e.g.
  SearXNG's ``…/search?q={query}&format=json``); without one the tool is not
  offered.
* ``agent changes MESSAGE_ID [--json]`` — the files an answer's tool calls
  changed, per call, and whether they were rolled back (an unknown id:
  exit 1).
* ``agent rollback MESSAGE_ID [--call CALL_ID] [--json]`` — put those files
  back (one call's, or every call's not rolled back yet). Exit 1 when a file
  changed since: nothing is written and the files are listed
  (``{"rolled_back": false, "conflicts": [...]}`` with ``--json``).

``thread agent ID on|off [--json]`` and ``thread plan ID on|off [--json]``
(registered here, run from ``thread``) set a thread's agent switch and its
plan mode. ``chat --agent`` does the same for the thread
it sends to; ``chat --approve ask|yes|no`` says who decides in manual mode
(``chat_agent.py``)."""

from __future__ import annotations

import argparse
import sys

from ..bootstrap import Services
from ..core.agent import PLAN_MODE, AgentMode, RollbackConflict
from ..core.errors import NotFoundError
from .output import print_error, print_json

NAME = "agent"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    agent = commands.add_parser("agent", help="the agent's approval mode and its file changes")
    sub = agent.add_subparsers(dest="agent_command", metavar="ACTION", required=True)
    mode = sub.add_parser("mode", help="show or set the approval mode")
    mode.add_argument("mode", nargs="?", choices=[m.value for m in AgentMode])
    mode.add_argument("--json", action="store_true")
    developer = sub.add_parser("developer", help="let the agent write anywhere in .agent/")
    developer.add_argument("state", nargs="?", choices=["on", "off"])
    developer.add_argument("--json", action="store_true")
    search = sub.add_parser("search-url", help="show or set the web search endpoint")
    search.add_argument("url", nargs="?", help="an address with {query}, answering JSON")
    search.add_argument("--clear", action="store_true", help="no web search")
    search.add_argument("--json", action="store_true")
    changes = sub.add_parser("changes", help="the files an answer changed")
    changes.add_argument("message_id")
    changes.add_argument("--json", action="store_true")
    back = sub.add_parser("rollback", help="put back the files an answer changed")
    back.add_argument("message_id")
    back.add_argument("--call", metavar="CALL_ID", help="only this tool call's changes")
    back.add_argument("--json", action="store_true")


THREAD_ACTIONS = frozenset({"agent", "plan"})


def register_thread_action(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    helps = {
        "agent": "answer with the agent in the workspace folder (on/off)",
        "plan": "plan mode: the agent proposes a plan and changes nothing (on/off)",
    }
    for action, text in helps.items():
        switch = sub.add_parser(action, help=text)
        switch.add_argument("id")
        switch.add_argument("state", choices=["on", "off"])
        switch.add_argument("--json", action="store_true")


async def run_thread_action(services: Services, args: argparse.Namespace) -> int:
    on = args.state == "on"
    if args.thread_command == "plan":
        thread = await services.threads.set_plan_mode(args.id, on)
        if args.json:
            print_json({"thread_id": thread.id, "plan_mode": thread.mode == PLAN_MODE})
        else:
            print(f"Thread {thread.id}: plan mode {'on' if on else 'off'}.")
        return 0
    thread = await services.threads.set_agent(args.id, on)
    if args.json:
        print_json({"thread_id": thread.id, "agent_enabled": thread.agent_enabled})
    elif thread.agent_enabled:
        print(f"Thread {thread.id} answers with the agent.")
    else:
        print(f"Thread {thread.id}: agent off.")
    return 0


async def run(services: Services, args: argparse.Namespace) -> int:
    agent = services.agent
    if args.agent_command == "mode":
        if args.mode:
            await agent.set_mode(AgentMode(args.mode))
        mode = await agent.mode()
        print_json({"mode": str(mode)}) if args.json else print(mode)
        return 0
    if args.agent_command == "developer":
        if args.state:
            await agent.set_developer_mode(args.state == "on")
        on = await agent.developer_mode()
        print_json({"developer_mode": on}) if args.json else print("on" if on else "off")
        return 0
    if args.agent_command == "search-url":
        if args.url or args.clear:
            await agent.set_search_url(None if args.clear else args.url)
        url = await agent.search_url()
        if args.json:
            print_json({"search_url": url})
        else:
            print(url or "No web search endpoint is set.")
        return 0
    if args.agent_command == "changes":
        return await _changes(services, args)
    return await _rollback(services, args)


async def _changes(services: Services, args: argparse.Namespace) -> int:
    trace = await services.store.agent_trace(args.message_id)
    if trace is None:  # an answer without tool calls, or no message at all
        await _known_message(services, args.message_id)
    calls = [
        {
            "call_id": c["call_id"],
            "files": list(dict.fromkeys(ch["path"] for ch in c.get("changes", []))),
            "rolled_back": bool(c.get("rolled_back")),
        }
        for c in (trace or {}).get("calls", [])
    ]
    if args.json:
        print_json(
            {"message_id": args.message_id, "root": (trace or {}).get("root"), "calls": calls}
        )
        return 0
    if not calls:
        print("This answer changed no files.")
    for call in calls:
        mark = " (rolled back)" if call["rolled_back"] else ""
        print(f"{call['call_id']}{mark}: {', '.join(call['files'])}")
    return 0


async def _known_message(services: Services, message_id: str) -> None:
    """NotFoundError (exit 1) for an id that names no message."""
    try:
        await services.store.get_message(message_id)
    except NotFoundError as exc:
        raise NotFoundError(
            exc.message, hint="Message ids are in `mira-desktop thread show THREAD_ID --json`."
        ) from None


async def _rollback(services: Services, args: argparse.Namespace) -> int:
    try:
        _, restored = await services.agent.rollback(args.message_id, args.call)
    except RollbackConflict as conflict:
        if args.json:
            print_json({"rolled_back": False, "conflicts": conflict.files, "restored": []})
        else:
            print_error(conflict)
        return 1
    if args.json:
        print_json({"rolled_back": True, "conflicts": [], "restored": restored})
    else:
        for path in restored:
            print(f"restored {path}")
        sys.stdout.flush()
    return 0
