"""Printing for the CLI: JSON lines, tables, and errors with their hints, on
streams that can write every character (:func:`use_utf8_streams`)."""

from __future__ import annotations

import codecs
import io
import json
import sys
from typing import Any, TextIO

from ..core.errors import MiraError


def use_utf8_streams() -> None:
    """Make stdout and stderr write UTF-8 when they are a file or a pipe
    (``mira-desktop export … > thread.md``): Windows gives them the locale's
    code page (cp1252), which cannot write Chinese, emoji or "≈", and a C
    locale gives ASCII. A console keeps its encoding (Windows' writes
    Unicode itself), but a character it lacks is written as an escape rather
    than failing. Call once, before anything is written."""
    for stream in (sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper):
            continue  # replaced (tests, an embedding program): its owner decides
        if codecs.lookup(stream.encoding).name == "utf-8":
            continue
        if stream.isatty():
            stream.reconfigure(errors="backslashreplace")
        else:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    # text piped in (`chat -`) is read as UTF-8 too, whatever the locale says;
    # a byte that is not UTF-8 becomes U+FFFD rather than a failure
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper) and not stdin.isatty():
        if codecs.lookup(stdin.encoding).name != "utf-8" or stdin.errors == "surrogateescape":
            stdin.reconfigure(encoding="utf-8", errors="replace")


def print_json(data: Any, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    out.write(json.dumps(data, ensure_ascii=False) + "\n")
    out.flush()


def print_error(error: MiraError | dict[str, Any] | str) -> None:
    if isinstance(error, MiraError):
        message, hint = error.message, error.hint
    elif isinstance(error, dict):
        message, hint = str(error.get("message", "")), str(error.get("hint", "") or "")
    else:
        message, hint = error, ""
    sys.stderr.write(f"error: {message}\n")
    if hint:
        sys.stderr.write(f"hint: {hint}\n")
    sys.stderr.flush()


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    sys.stdout.write(line.rstrip() + "\n")
    for row in rows:
        sys.stdout.write(
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n"
        )
