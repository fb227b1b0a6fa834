"""One benchmark section in its own interpreter (the runner starts one per
section, so a crash or a leak in one cannot skew or stop the others, and
memory figures start clean):

    python -m tests.benchmarks.section NAME --root DIR --out FILE [--quick]

writes ``{"figures", "details", "seconds"}`` — or ``{"error": traceback}`` —
as JSON to FILE."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import time
import traceback
from pathlib import Path

log = logging.getLogger(__name__)

#: section name -> module, in the order of issue 9
SECTIONS = {
    "search": "bench_search",
    "thread": "bench_thread",
    "streaming": "bench_stream",
    "startup": "bench_startup",
    "sidebar": "bench_sidebar",
    "export": "bench_export",
    "tokens": "bench_tokens",
    "rag": "bench_kb",
    # info, after the numbered ones: search as the reader types it
    "search_dialog": "bench_search_dialog",
    # info: memory over a long session of the real window
    "memory": "bench_memory",
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("name", choices=sorted(SECTIONS))
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    logging.basicConfig(level=logging.WARNING)
    started = time.perf_counter()
    try:
        module = importlib.import_module(f"tests.benchmarks.{SECTIONS[args.name]}")
        result = module.run(args.quick, args.root)
    except Exception:
        result = {"error": traceback.format_exc()}
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.write_text(json.dumps(result, ensure_ascii=False, default=str))
    return 0 if "error" not in result else 1


if __name__ == "__main__":
    raise SystemExit(main())
