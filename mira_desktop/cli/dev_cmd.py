"""``mira-desktop dev seed --threads N --messages M [--seed S] [--data-dir DIR]``:
developer tools. ``seed`` fills the data folder with synthetic history —
``N`` threads of ``M`` messages **each** (``N × M`` in all), mixed English and
Chinese, user and assistant alternating, some answers with code — for trying
the app at scale and for ``python -m tests.benchmarks``. It adds to what the
folder holds (use an empty folder for a clean set) and prints a JSON report
``{"threads", "messages", "seconds", "db_mb"}``.

``--data-dir`` may come after ``seed`` as well as before the command."""

from __future__ import annotations

import argparse
import logging
import sys

from ..bootstrap import Services
from ..services.seed import SeedService
from ..storage.database import DB_FILENAME
from ..storage.seed_repo import SeedStore
from .output import print_json

log = logging.getLogger(__name__)

NAME = "dev"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    dev = commands.add_parser("dev", help="developer tools (synthetic data)")
    actions = dev.add_subparsers(dest="dev_command", metavar="ACTION", required=True)
    seed = actions.add_parser("seed", help="add synthetic threads and messages")
    seed.add_argument("--threads", type=_count, required=True, metavar="N", help="threads to add")
    seed.add_argument(
        "--messages", type=_count, required=True, metavar="M", help="messages per thread"
    )
    seed.add_argument("--seed", type=int, default=0, help="random seed (same seed, same text)")
    seed.add_argument(
        "--data-dir",
        dest="data_dir",
        metavar="DIR",
        default=argparse.SUPPRESS,  # keeps a --data-dir given before the command
        help="data folder (as the global option)",
    )
    seed.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _count(text: str) -> int:
    """A count of --threads or --messages: a negative one is a usage error
    (exit 2, with the usage), as a word is."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"cannot be negative: {value}")
    return value


async def run(services: Services, args: argparse.Namespace) -> int:
    seeder = SeedService(SeedStore(services.store.worker))

    def progress(done: int, total: int) -> None:
        if not args.quiet:
            print(f"\r{done}/{total} threads", end="", file=sys.stderr, flush=True)

    report = await seeder.seed(args.threads, args.messages, seed=args.seed, progress=progress)
    if not args.quiet and report.threads:
        print(file=sys.stderr)
    size = (services.data_dir / DB_FILENAME).stat().st_size / 1e6
    print_json({**report.to_dict(), "db_mb": round(size, 1)})
    return 0
