"""Knowledge-base section (issue 9 §8): runs the KB engineer's
``bench_rag.run`` (when the module exists) and reports its figures against
their baselines — ingest throughput against the raw readers alone, lexical
retrieval p95 on 100,000 passages (quick: 2,000), the vector scan against an
exact pure-Python scan, recall on the evaluation corpus."""

from __future__ import annotations

import importlib
import inspect
import logging
from pathlib import Path
from typing import Any

from .common import Figure

log = logging.getLogger(__name__)

QUICK_CHUNKS = 2_000


def _rag_run(quick: bool, root: Path) -> dict[str, Any] | None:
    """``bench_rag.run(quick)``; quick with fewer passages, full with its data
    folder kept under the runner's data root (reused by the next run), when
    its signature allows."""
    try:
        module = importlib.import_module("tests.benchmarks.bench_rag")
    except ImportError:
        return None
    run = module.run
    parameters = inspect.signature(run).parameters
    if quick and "chunks" in parameters:
        return dict(run(True, chunks=QUICK_CHUNKS))
    if not quick and "folder" in parameters:
        folder = root / "rag"
        folder.mkdir(parents=True, exist_ok=True)
        return dict(run(False, folder=folder))
    return dict(run(quick))


def run(quick: bool, root: Path) -> dict[str, Any]:
    result = _rag_run(quick, root)
    if result is None:
        return {
            "figures": [],
            "details": {"skipped": "tests/benchmarks/bench_rag.py is not there yet"},
        }
    figures: list[Figure] = []
    ingest = result.get("ingest") or {}
    if ingest:
        figures.append(
            Figure(
                "KB ingest throughput",
                ingest["ingest"]["mb_per_s"],
                "MB/s",
                ingest["raw_readers"]["mb_per_s"],
                "raw readers MB/s",
                note=f"{ingest['files']} files, {ingest['passages']} passages",
            )
        )
    chunks = result.get("chunks", 0)
    lexical = (result.get("lexical") or {}).get("all")
    if lexical:
        figures.append(
            Figure(f"KB lexical retrieval p95, {chunks:,} passages", lexical["p95_ms"], "ms")
        )
        figures.append(
            Figure(f"KB lexical retrieval p50, {chunks:,} passages", lexical["p50_ms"], "ms")
        )
    dense = result.get("dense") or {}
    if dense:
        figures.append(
            Figure(
                f"KB vector query p95, {dense['vectors']:,} vectors",
                dense["query"]["p95_ms"],
                "ms",
                dense["exact_pure_python_scan_ms"],
                "exact pure-Python scan",
                note=f"recall@10 vs exact {dense['recall@10_vs_exact']}",
            )
        )
    recall = result.get("recall") or {}
    if "recall@5" in recall:
        figures.append(Figure("KB recall@5 (evaluation corpus)", recall["recall@5"], ""))
    return {"figures": [f.to_dict() for f in figures], "details": result}
