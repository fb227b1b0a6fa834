"""Whether an ``awk`` command (awk, gawk, mawk, nawk) may change files or run
commands, for ``commands.py``.

Its options are read as getopt does (``-e'…'`` and ``--source=…`` hold
program text, abbreviations count); a program from a file (``-f``, ``-E``),
an include or an extension (``-i``, ``-l``, ``@include``, ``@load``) and
the options that write files (``-o``, ``-p``, ``-d``: gawk's pretty-print,
profile and variable dump) or start the debugger ask, as does any option
not listed. The program text itself asks when it calls ``system``, pipes
to or from a command (``|``, ``|&``: ``"cmd" | getline``), redirects
``print``/``printf`` (``>`` after them) or makes an indirect call (``@f``).
The text is searched as it is, strings included: an ``|`` inside a string
asks too, but no reading of strings and regular expressions can hide one
from the check."""

from __future__ import annotations

import re

from .cli_options import parse

# fmt: off
_LONG_FLAGS = frozenset({
    "--characters-as-bytes", "--traditional", "--copyright", "--gen-pot", "--help",
    "--bignum", "--use-lc-numeric", "--non-decimal-data", "--optimize", "--no-optimize",
    "--posix", "--re-interval", "--sandbox", "--lint-old", "--version", "--csv",
})
_LONG_VALUED = frozenset({
    "--field-separator", "--assign", "--source", "--file", "--exec", "--include", "--load",
})
# fmt: on
_FROM_FILES = {
    "-f": "runs an awk program from a file",
    "--file": "runs an awk program from a file",
    "-E": "runs an awk program from a file",
    "--exec": "runs an awk program from a file",
    "-i": "runs awk -i, which includes a file of awk code",
    "--include": "runs awk --include, which includes a file of awk code",
    "-l": "runs awk -l, which loads an extension library",
    "--load": "runs awk --load, which loads an extension library",
    "-W": "runs awk -W, whose options cannot be checked",
}
_RISKY = (
    (re.compile(r"\bsystem\b"), "runs an awk program that runs commands (system)"),
    (re.compile(r"@"), "runs an awk program with @include, @load or an indirect call"),
    (re.compile(r"(?<!\|)\|(?!\|)"), "runs an awk program that pipes to or from a command"),
    (re.compile(r"\bprintf?\b.*>", re.DOTALL), "runs an awk program that writes to a file"),
)


def awk_reason(args: list[str]) -> str | None:
    """Why ``awk ARGS`` may change files; None when it only reads."""
    options = parse(
        args,
        flags="bcCghMNnOPrsStVL",
        valued="FvefEilW",
        long_flags=_LONG_FLAGS,
        long_valued=_LONG_VALUED,
        long_optional={"--lint"},
    )
    for name, _ in options.found:
        if name in _FROM_FILES:
            return _FROM_FILES[name]
    if options.unknown:
        return f"runs awk {options.unknown[0]}, which may write files"
    programs = options.values("-e", "--source") or options.operands[:1]
    for program in programs:
        for pattern, reason in _RISKY:
            if pattern.search(program):
                return reason
    return None
