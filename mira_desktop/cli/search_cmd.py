"""``mira-desktop search QUERY [--since today|week|month|quarter] [--workspace NAME]
[--archived] [--limit N] [--json]``: full-text search over titles and messages.

Plain output: one block per hit, the thread's title and id, then the snippet
with matches between « ». ``--json``: one object ``{"query", "count", "hits"}``,
each hit as ``SearchHit.to_dict()`` (highlights are ``[start, end]`` offsets
into ``snippet``)."""

from __future__ import annotations

import argparse
import logging

from ..bootstrap import Services
from ..services.search import render_marked
from ..services.timeframes import SINCE_CHOICES
from .output import print_json

log = logging.getLogger(__name__)

NAME = "search"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    search = commands.add_parser("search", help="search thread titles and messages")
    search.add_argument("query", nargs="+", metavar="QUERY", help='words; "a phrase" stays whole')
    search.add_argument("--since", choices=SINCE_CHOICES, help="only this period (local time)")
    search.add_argument("--workspace", metavar="NAME", help="only this workspace")
    search.add_argument("--archived", action="store_true", help="include archived threads")
    search.add_argument("--limit", type=int, default=50, help="at most this many hits")
    search.add_argument("--json", action="store_true")


async def run(services: Services, args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    workspace_id = None
    if args.workspace:
        workspace_id = (await services.workspaces.find(args.workspace)).id
    hits = await services.search.search(
        query,
        since=args.since,
        workspace_id=workspace_id,
        include_archived=args.archived,
        limit=args.limit,
    )
    if args.json:
        print_json({"query": query, "count": len(hits), "hits": [h.to_dict() for h in hits]})
        return 0
    if not hits:
        print(f"No results for “{query}”.")
        return 0
    for hit in hits:
        where = "title" if hit.message_id is None else f"message {hit.message_id}"
        print(f"{hit.thread_title}  [{hit.thread_id}] ({where}, {hit.created_at[:16]})")
        print(f"    {render_marked(hit.snippet, hit.highlights)}")
    return 0
