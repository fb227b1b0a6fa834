"""``mira-desktop doctor [--fix] [--dry-run] [--json]``: check the data folder
for damage (see ``services/doctor.py``) and repair it.

Without options it only reports. ``--fix`` repairs everything in one database
transaction (files are deleted after it committed) and checks again;
``--dry-run`` prints what ``--fix`` would do and changes nothing (it wins over
``--fix``). Exit code 0 when healthy or fixed, 1 when problems remain. Start-up
recovery does not run before this command, so a dry run really changes nothing."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from pathlib import Path

from ..bootstrap import Services, build_services
from ..core.errors import StorageError
from ..services.doctor import DoctorReport, Problem, damaged_problem
from .output import print_json

NAME = "doctor"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    doctor = commands.add_parser("doctor", help="check the data folder and repair damage")
    doctor.add_argument(
        "--fix", action="store_true", help="repair what is found (one transaction), then recheck"
    )
    doctor.add_argument(
        "--dry-run", action="store_true", help="show what --fix would do; change nothing"
    )
    doctor.add_argument("--json", action="store_true", help="print the report as one JSON object")


async def run(services: Services, args: argparse.Namespace) -> int:
    if args.dry_run:
        report = await services.doctor.fix(dry_run=True)
    elif args.fix:
        report = await services.doctor.fix()
    else:
        report = await services.doctor.check()
    return _output(services.data_dir, report, args)


async def run_on_damaged(data_dir: Path, args: argparse.Namespace, error: StorageError) -> int:
    """``doctor`` on a database too damaged to open: reported; with ``--fix``
    saved into a new database (``storage/salvage.py``), which is then checked
    and repaired as usual."""
    from ..storage.salvage import salvage_database

    damage = damaged_problem(str(error.__cause__ or error))
    if args.dry_run or not args.fix:
        mode = "dry-run" if args.dry_run else "check"
        actions = (f"{damage.fix} ({damage.subject})",) if args.dry_run else ()
        return _output(data_dir, DoctorReport(mode, (damage,), actions, (damage,)), args)
    salvaged = await asyncio.to_thread(salvage_database, data_dir)
    services = build_services(data_dir)
    try:
        report = await services.doctor.fix(salvaged=salvaged)
    finally:
        await services.aclose()
    report = dataclasses.replace(
        report,
        problems=(damage, *report.problems),
        actions=(f"{damage.fix} ({damage.subject})", *report.actions),
    )
    return _output(data_dir, report, args)


def _output(data_dir: Path, report: DoctorReport, args: argparse.Namespace) -> int:
    if args.json:
        print_json(report.to_dict())
    else:
        _print_report(data_dir, report)
    return 0 if report.healthy else 1


def _line(problem: Problem) -> str:
    where = f" (thread {problem.thread_id})" if problem.thread_id else ""
    return f"  - {problem.code} {problem.subject}: {problem.detail}{where}"


def _print_report(data_dir: Path, report: DoctorReport) -> None:
    if not report.problems:
        print(f"Checked {data_dir}: no problems found.")
        return
    print(f"Checked {data_dir}: {len(report.problems)} problem(s).")
    for problem in report.problems:
        print(_line(problem))
    if report.mode == "check":
        print("Run `mira-desktop doctor --fix` to repair them (`--dry-run` shows how first).")
        return
    print("--fix would:" if report.mode == "dry-run" else "Repaired:")
    for action in report.actions:
        print(f"  - {action}")
    if report.salvage is not None:
        _print_salvage(report)
    if report.mode == "dry-run":
        print("Nothing was changed.")
    elif report.remaining:
        print(f"Still wrong ({len(report.remaining)}):")
        for problem in report.remaining:
            print(_line(problem))
    else:
        print("The data folder is healthy now.")


def _print_salvage(report: DoctorReport) -> None:
    salvage = report.salvage
    assert salvage is not None
    print(f"The damaged database was moved to {salvage.damaged_copy}.")
    if not salvage.readable:
        print("Nothing could be read from it: Mira starts with an empty database.")
    else:
        spots = (
            f" ({salvage.damaged_spots} damaged spot(s) skipped)" if salvage.damaged_spots else ""
        )
        print(
            f"Saved {salvage.threads} conversation(s) and {salvage.messages} message(s)"
            f" into a new database{spots}."
        )
    if salvage.backups:
        print("Backups made before updates (the newest first):")
        for path in salvage.backups[:5]:
            print(f"  - {path}")
