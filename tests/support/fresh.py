"""Run a script in a fresh interpreter (``sys.modules``, the collector and
the switch interval of the test process are shared with every other test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def json_of(script: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """The JSON printed on the last line of ``script``, run from the checkout."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
