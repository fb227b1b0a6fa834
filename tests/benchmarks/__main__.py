"""Mira against its limits (issue 9): builds synthetic data, measures each
area against a baseline measured in the same run, and prints a table (and,
with ``--json``, writes every number).

    python -m tests.benchmarks [--quick] [--json PATH] [--only NAME,...]
                               [--data DIR] [--markdown PATH]

Sections (in order): search, thread, streaming, startup, sidebar, export,
tokens, rag, then two without a target: search_dialog, memory. Each runs in its own interpreter (``section.py``) with
``QT_QPA_PLATFORM=offscreen``. ``--quick`` uses small data sets (the whole run
in about a minute; CI runs it through ``tests/test_benchmarks_quick.py`` to
keep it working). ``--data DIR`` keeps the generated data folders there and
reuses them next time (the full search set takes minutes to seed); without
it they go to a temporary folder that is removed afterwards.

A missed target is reported (by how much), never an error: the exit status is
1 only when a section itself failed. Not collected by pytest (``benchmarks``
is in ``norecursedirs``)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .report import (
    cpu_times,
    load_average,
    machine,
    machine_line,
    markdown_table,
    steal_line,
    steal_percent,
    text_table,
)
from .section import SECTIONS

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = {True: 300, False: 3600}  # per section, quick / full


def _run_section(name: str, root: Path, quick: bool) -> dict[str, Any]:
    out = root / f".{name}-result.json"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "tests.benchmarks.section", name, "--root", str(root)]
    cmd += ["--out", str(out)] + (["--quick"] if quick else [])
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT[quick]
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT[quick]} s", "seconds": TIMEOUT[quick]}
    if out.exists():
        return dict(json.loads(out.read_text()))
    tail = (done.stderr or "").strip()[-2000:]
    return {
        "error": f"exit status {done.returncode}: {tail}",
        "seconds": round(time.perf_counter() - started, 1),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small data sets (about a minute)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every number here")
    parser.add_argument("--only", metavar="NAME,...", help=f"among: {', '.join(SECTIONS)}")
    parser.add_argument("--data", type=Path, metavar="DIR", help="keep and reuse data here")
    parser.add_argument("--markdown", type=Path, metavar="PATH", help="write the table as Markdown")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = list(SECTIONS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in SECTIONS]
        if unknown:
            print(f"unknown section(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
    root = args.data or Path(tempfile.mkdtemp(prefix="mira-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "quick": args.quick,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "sections": {},
    }
    started = time.perf_counter()
    try:
        for name in names:
            print(f"[{name}] …", file=sys.stderr, flush=True)
            before = cpu_times()
            section = _run_section(name, root, args.quick)
            section["host_steal_pct"] = steal_percent(before, cpu_times())
            results["sections"][name] = section
            print(f"[{name}] {section.get('seconds', '?')} s", file=sys.stderr, flush=True)
    finally:
        if args.data is None:
            shutil.rmtree(root, ignore_errors=True)
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["machine"]["load_average_end"] = load_average()
    mode = "quick" if args.quick else "full"
    print(f"Mira benchmarks ({mode}, {results['seconds']} s) on {machine_line(results['machine'])}")
    print(text_table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False, default=str))
    if args.markdown:
        steal = steal_line(results)
        args.markdown.write_text(markdown_table(results) + "\n" + (f"\n{steal}\n" if steal else ""))
    failed = [n for n, s in results["sections"].items() if "error" in s]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
