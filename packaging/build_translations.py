"""Build step: compile the translation sources ``resources/i18n/*.ts`` into the ``.qm``
files ``QTranslator`` loads, next to them (they ship in wheels and bundles; git ignores
them). Uses Mira's pure-Python compiler, so no Qt ``lrelease`` binary is needed.

    python packaging/build_translations.py            # resources/i18n/*.ts -> *.qm
    python packaging/build_translations.py --out DIR  # write the .qm files into DIR
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mira_desktop.ui.ts_compiler import compile_ts  # noqa: E402 (needs the path above)

log = logging.getLogger("build_translations")


def build(source_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """Compile every ``.ts`` in ``source_dir``; return the written ``.qm`` paths."""
    written = []
    for ts_file in sorted(source_dir.glob("*.ts")):
        qm_file = (out_dir or source_dir) / ts_file.with_suffix(".qm").name
        compile_ts(ts_file, qm_file)
        log.info(
            "%s -> %s",
            ts_file.relative_to(ROOT) if ts_file.is_relative_to(ROOT) else ts_file,
            qm_file,
        )
        written.append(qm_file)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compile resources/i18n/*.ts into .qm files.")
    parser.add_argument("--source", type=Path, default=ROOT / "resources" / "i18n")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    written = build(args.source, args.out)
    if not written:
        log.error("no .ts files in %s", args.source)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
