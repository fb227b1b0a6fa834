"""Start-up benchmark (issue 9 §4): wall time of ``mira-desktop --screenshot``
in a fresh interpreter on the search data set (20,000 threads, 1,000,000
messages; quick: 500 threads) against ``bare_window.py`` (a bare PySide6
window screenshot with the same settling), median of ``RUNS`` alternating runs.

References, not targets: Mira on an empty data folder (what the data costs)
and ``python -c pass`` (the interpreter); plus the slowest top-level imports
of ``mira_desktop`` from ``-X importtime`` (where start-up goes)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .bench_search import sizes as search_sizes
from .common import Figure, dataset, median

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
#: Alternating runs of each command in a full run. A launch varies by 5-10%
#: from run to run on a shared machine, and now and then a few runs in a row
#: are slow: with 5 runs, three slow launches of Mira in a row (0.81, 0.77,
#: 0.76 s against 0.63-0.64 s) made one median ratio 1.60x where the same
#: hour gave 1.27-1.41x. With 9, such a spell has to last five runs.
RUNS = 9


def _env(pycache: Path | None = None) -> dict[str, str]:
    """Offscreen, with byte code cached (in ``pycache``, outside the checkout),
    as an installed app has it: compiling ~300 modules on every launch would
    add half a second that no user pays."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if pycache is not None:
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _wall(cmd: list[str], pycache: Path) -> float:
    started = time.perf_counter()
    env = _env(pycache)
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[2:4]} exited {done.returncode}: {done.stderr[-800:]}")
    return seconds


def mira_cmd(data_dir: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), "--screenshot", str(out)]  # fmt: skip


def slowest_imports(
    data_dir: Path, out: Path, pycache: Path, top: int = 8
) -> list[tuple[str, float]]:
    """Top-level ``mira_desktop`` / third-party imports by cumulative ms."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *mira_cmd(data_dir, out)[1:]],
        cwd=REPO,
        env=_env(pycache),
        capture_output=True,
        text=True,
        timeout=300,
    )
    found: dict[str, float] = {}
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match.group(2)) <= 2:  # top level, or one below
            found[match.group(3)] = max(found.get(match.group(3), 0), int(match.group(1)) / 1000)
    return sorted(found.items(), key=lambda item: item[1], reverse=True)[:top]


def run(quick: bool, root: Path) -> dict[str, Any]:
    threads, messages = search_sizes(quick)
    data = dataset(root, "search", [(threads, messages)])
    folder = Path(data["dir"])
    runs = 1 if quick else RUNS
    with tempfile.TemporaryDirectory(prefix="mira-bench-startup-") as tmp:
        work = Path(tmp)
        empty = work / "empty"
        out = work / "shot.png"
        cache = root / "pycache"
        bare_cmd = [sys.executable, str(HERE / "bare_window.py"), str(out)]
        _wall(mira_cmd(folder, out), cache)  # warm the page cache and byte code
        _wall(bare_cmd, cache)
        if not quick:
            _wall(mira_cmd(empty, out), cache)  # creates and migrates the empty folder
        mira, bare, empty_runs, python = [], [], [], []
        for _ in range(runs):
            mira.append(_wall(mira_cmd(folder, out), cache))
            bare.append(_wall(bare_cmd, cache))
            if not quick:  # a reference only: saves two launches in quick mode
                empty_runs.append(_wall(mira_cmd(empty, out), cache))
            python.append(_wall([sys.executable, "-c", "pass"], cache))
        imports = [] if quick else slowest_imports(folder, out, cache)
    figures = [
        Figure(
            f"start-up --screenshot, {threads:,} threads",
            median(mira) * 1000,
            "ms",
            median(bare) * 1000,
            "bare PySide6 window screenshot",
            max_ratio=1.5,
        ),
        Figure("python -c pass", median(python) * 1000, "ms"),
    ]
    if empty_runs:
        figures.insert(
            1,
            Figure(
                "start-up --screenshot, empty data folder",
                median(empty_runs) * 1000,
                "ms",
                median(bare) * 1000,
                "bare PySide6 window screenshot",
            ),
        )
    return {
        "figures": [f.to_dict() for f in figures],
        "details": {
            "runs": runs,
            "threads": threads,
            "messages": threads * messages,
            "mira_s": [round(s, 3) for s in mira],
            "bare_s": [round(s, 3) for s in bare],
            "empty_s": [round(s, 3) for s in empty_runs],
            "slowest_imports_ms": dict(imports),
        },
    }
