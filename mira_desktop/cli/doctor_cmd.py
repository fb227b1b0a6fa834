"""``mira-desktop doctor [--fix] [--dry-run] [--json]``: check the data folder
for damage (see ``services/doctor.py``) and repair it.

Without options it only reports. ``--fix`` repairs everything in one database
transaction (files are deleted after it committed) and checks again;
``--dry-run`` prints what ``--fix`` would do and changes nothing (it wins over
``--fix``). Exit code 0 when healthy or fixed, 1 when problems remain. Start-up
recovery does not run before this command, so a dry run really changes nothing."""

from __future__ import annotations

import argparse

from ..bootstrap import Services
from ..services.doctor import DoctorReport, Problem
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
    if args.json:
        print_json(report.to_dict())
    else:
        _print_report(services, report)
    return 0 if report.healthy else 1


def _line(problem: Problem) -> str:
    where = f" (thread {problem.thread_id})" if problem.thread_id else ""
    return f"  - {problem.code} {problem.subject}: {problem.detail}{where}"


def _print_report(services: Services, report: DoctorReport) -> None:
    if not report.problems:
        print(f"Checked {services.data_dir}: no problems found.")
        return
    print(f"Checked {services.data_dir}: {len(report.problems)} problem(s).")
    for problem in report.problems:
        print(_line(problem))
    if report.mode == "check":
        print("Run `mira-desktop doctor --fix` to repair them (`--dry-run` shows how first).")
        return
    print("--fix would:" if report.mode == "dry-run" else "Repaired:")
    for action in report.actions:
        print(f"  - {action}")
    if report.mode == "dry-run":
        print("Nothing was changed.")
    elif report.remaining:
        print(f"Still wrong ({len(report.remaining)}):")
        for problem in report.remaining:
            print(_line(problem))
    else:
        print("The data folder is healthy now.")
