"""Where bash evaluates text as an expression, for ``commands.py``: arithmetic
(``$((…))``, ``$[…]``, ``[[ a -eq b ]]``), an array index (``${a[i]}``, a
name such as ``a[$(cmd)]`` given to ``test -v``, ``printf -v`` or
``read``), a substring offset (``${x:i}``), an indirect name (``${!x}``) and
a prompt expansion (``${x@P}``). Evaluating a variable there evaluates its
value in turn, and an index in it runs the command substitutions it holds:
``x='a[$(touch p)]'; echo $((x))`` creates ``p`` (``/bin/sh`` is bash on
macOS). So these count as read-only only when they hold literal numbers, or
plain names where a name is expected."""

from __future__ import annotations

import re

from .cli_options import parse

_NUMBERS = re.compile(r"[\s0-9+\-*/%<>=!&|^~?:(),]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: ``${…}``: an optional ``#`` (length), the parameter, an optional index, the rest
_PARAMETER = re.compile(
    r"(?P<length>#)?(?P<name>[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])"
    r"(?:\[(?P<index>[^]]*)\])?(?P<rest>.*)",
    re.DOTALL,
)
_SAFE_TRANSFORMS = frozenset("QEAaUuLKk")
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def evaluation_reason(arithmetic: list[str], parameters: list[str]) -> str | None:
    """Why the arithmetic and ``${…}`` expansions of a command may run
    commands; None when they only hold literal numbers and plain forms."""
    for text in arithmetic:
        if not _NUMBERS.fullmatch(text):
            return "evaluates arithmetic on variables, which can run commands"
    for text in parameters:
        if reason := _parameter_reason(text):
            return reason
    return None


def _parameter_reason(text: str) -> str | None:
    if text.startswith("!") and len(text) > 1:
        if re.fullmatch(r"![A-Za-z_][A-Za-z0-9_]*(?:[@*]|\[[@*]\])", text):
            return None  # names with a prefix, an array's keys
        return "expands a variable named by another (${!…}), which can run commands"
    found = _PARAMETER.fullmatch(text)
    if found is None:
        return "has a ${…} expansion that cannot be checked"
    index = found["index"]
    if index is not None and index not in ("@", "*") and not _INTEGER.fullmatch(index):
        return "evaluates an array index, which can run commands"
    rest = found["rest"]
    if not rest:
        return None
    if found["length"] or rest[0] not in ":-=?+#%/^,@":
        return "has a ${…} expansion that cannot be checked"
    if rest[0] == ":" and rest[1:2] not in ("-", "=", "?", "+"):
        if not re.fullmatch(r"[\s0-9:+-]*", rest[1:]):
            return "evaluates a substring offset, which can run commands"
    elif rest[0] == "@" and rest[1:] not in _SAFE_TRANSFORMS:
        return "expands ${…" + rest + "}, which can run commands"
    return None


def conditional_reason(args: list[str]) -> str | None:
    """``[[ ARGS ]]``: bash evaluates both sides of ``-eq``… as arithmetic,
    and the name after ``-v`` (an index in it) — literal numbers and plain
    names only."""
    for at, arg in enumerate(args):
        if arg in ARITHMETIC_TESTS:
            sides = args[at - 1 : at] + args[at + 1 : at + 2]
            if len(sides) < 2 or not all(_INTEGER.fullmatch(side) for side in sides):
                return "compares variables as arithmetic in [[ ]], which can run commands"
    return test_reason(args)


def test_reason(args: list[str]) -> str | None:
    """``test``/``[``: ``-v NAME`` and ``-R NAME`` evaluate an index in NAME."""
    for at, arg in enumerate(args):
        if arg in ("-v", "-R") and not _NAME.fullmatch(_next(args, at)):
            return f"tests {arg} on a name that is not plain, which can run commands"
    return None


def printf_reason(args: list[str]) -> str | None:
    """``printf -v NAME``: an index in NAME is evaluated."""
    for at, arg in enumerate(args):
        if arg == "--" or not arg.startswith("-"):
            return None
        if arg.startswith("-v"):
            name = arg[2:] or _next(args, at)
            if not _NAME.fullmatch(name):
                return "sets a variable whose name is not plain (printf -v), which can run commands"
    return None


def read_reason(args: list[str]) -> str | None:
    """``read NAME…`` and ``read -a NAME``: an index in a name is evaluated."""
    options = parse(args, flags="ers", valued="adinNptu", permute=False)
    names = options.operands + options.values("-a")
    if any(not _NAME.fullmatch(name) for name in names):
        return "reads into a variable whose name is not plain, which can run commands"
    return None


def _next(args: list[str], at: int) -> str:
    return args[at + 1] if at + 1 < len(args) else ""
