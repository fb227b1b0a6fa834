"""The runner's output: a description of the machine (noise matters, so it
is recorded with every result) and the results as a plain-text table, a list
of missed targets, and the same as Markdown for ``RESULTS.md``."""

from __future__ import annotations

import logging
import os
import platform
import sqlite3
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

COLUMNS = ("section", "figure", "Mira", "baseline", "ratio", "target", "verdict")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def cpu_times(stat: Path = Path("/proc/stat")) -> tuple[int, int] | None:
    """(steal, total) CPU time of all cores since boot, in clock ticks (Linux's
    ``/proc/stat``); None where there is no such file. Steal is the time the
    hypervisor ran other guests while this machine's CPUs wanted to run."""
    try:
        first = stat.read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    if len(first) < 9 or first[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal (guest time is in user)
    ticks = [int(x) for x in first[1:9]]
    return ticks[7], sum(ticks)


def steal_percent(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """Share of the CPU time between two :func:`cpu_times` the host stole, in %."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return round(100.0 * (after[0] - before[0]) / (after[1] - before[1]), 1)


def machine() -> dict[str, Any]:
    """CPU, cores, RAM, OS and the versions that matter to the figures."""
    from PySide6.QtCore import qVersion

    return {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "pyside6": _version("PySide6-Essentials"),
        "qt": qVersion(),
        "qasync": _version("qasync"),
        "httpx": _version("httpx"),
        "load_average_start": load_average(),
    }


def machine_line(info: dict[str, Any]) -> str:
    load = "/".join(str(x) for x in info.get("load_average_start", []))
    end = "/".join(str(x) for x in info.get("load_average_end", []))
    return (
        f"{info['cpu']}, {info['logical_cores']} logical cores, {info['ram_gb']} GB RAM; "
        f"Python {info['python']}, SQLite {info['sqlite']}, PySide6 {info['pyside6']} "
        f"(Qt {info['qt']}); load average {load} at start" + (f", {end} at end" if end else "")
    )


def fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    size = abs(value)
    text = f"{value:,.0f}" if size >= 100 else f"{value:.1f}" if size >= 10 else f"{value:.2f}"
    return f"{text} {unit}".strip()


def rows(results: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for name, section in results["sections"].items():
        if "error" in section:
            out.append((name, "ERROR: " + section["error"].strip().splitlines()[-1], *[""] * 5))
            continue
        if not section.get("figures"):
            skipped = (section.get("details") or {}).get("skipped", "no figures")
            out.append((name, f"(skipped: {skipped})", *[""] * 5))
        for figure in section.get("figures", []):
            ratio = figure["ratio"]
            out.append(
                (
                    name,
                    figure["name"],
                    fmt(figure["value"], figure["unit"]),
                    fmt(figure["baseline"], figure["unit"]),
                    "" if ratio is None else f"{ratio:.2f}×",
                    figure["target"],
                    figure["verdict"],
                )
            )
    return out


def misses(results: dict[str, Any]) -> list[str]:
    out = []
    for name, section in results["sections"].items():
        for figure in section.get("figures", []):
            if figure["misses"]:
                out.append(f"{name} / {figure['name']}: " + "; ".join(figure["misses"]))
    return out


def text_table(results: dict[str, Any]) -> str:
    table = [COLUMNS, *rows(results)]
    widths = [max(len(r[i]) for r in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    missed = misses(results)
    failed = [name for name, section in results["sections"].items() if "error" in section]
    if missed:
        lines.append("Missed targets:")
    elif failed:
        lines.append("No target missed among the sections that ran.")
    else:
        lines.append("All targets met.")
    lines += [f"  - {m}" for m in missed]
    lines += [f"  - {name}: did not run to the end (see its error)" for name in failed]
    steal = steal_line(results)
    if steal:
        lines += ["", steal]
    return "\n".join(lines)


def steal_line(results: dict[str, Any]) -> str:
    """The host's CPU steal during each section: a slow run with steal was
    the host's doing (other guests), not Mira's; empty where not measured."""
    parts = [
        f"{name} {section['host_steal_pct']:.1f}%"
        for name, section in results["sections"].items()
        if section.get("host_steal_pct") is not None
    ]
    return ("Host CPU steal during the sections: " + ", ".join(parts)) if parts else ""


def markdown_table(results: dict[str, Any]) -> str:
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---" for _ in COLUMNS) + "|",
    ]
    lines += [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows(results)
    ]
    return "\n".join(lines)
