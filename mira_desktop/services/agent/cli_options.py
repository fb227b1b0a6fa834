"""Reading a program's command-line options the way ``getopt_long`` does, so
that ``commands.py`` sees the options a program will act on, however they
are written: short ones clustered (``-iS'touch p'`` is ``-i -S 'touch p'``),
values attached or in the next word, long ones with ``=`` or the next word,
and long ones abbreviated to a unique prefix (``--outp=f`` is
``--output=f`` for GNU tools and git's parse-options).

:func:`parse` only knows the options it is told about; any other lands in
``unknown``, and the checks treat an option they do not know as a reason to
ask (an allowlist, like the rest of the policy)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field


@dataclass
class Options:
    """``found``: ``(name, value)`` in order, short options as ``-x``, long
    ones by their full name (``--output``), ``value`` None for a flag;
    ``operands``: the other words; ``unknown``: options not recognised
    (an ambiguous abbreviation included)."""

    found: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.found)

    def values(self, *names: str) -> list[str]:
        return [value for name, value in self.found if name in names and value is not None]


def parse(
    args: list[str],
    *,
    flags: str = "",
    valued: str = "",
    long_flags: Collection[str] = (),
    long_valued: Collection[str] = (),
    long_optional: Collection[str] = (),
    abbreviations: bool = True,
    permute: bool = True,
) -> Options:
    """The options of ``args``. ``flags``/``valued``: short option letters
    without/with a value; ``long_*``: long names (``"--output"``) that take
    no value, a value (``=`` or the next word) or an optional one (``=``
    only); ``permute``: options may follow operands (GNU), else the first
    operand ends them (POSIX, and wrappers such as ``env``)."""
    out = Options()
    longs = {**dict.fromkeys(long_flags, "flag"), **dict.fromkeys(long_optional, "optional")}
    longs.update(dict.fromkeys(long_valued, "valued"))
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            out.operands.extend(args[i:])
            break
        if arg.startswith("--"):
            i = _long(arg, args, i, longs, abbreviations, out)
        elif arg.startswith("-") and arg != "-":
            i = _short(arg, args, i, flags, valued, out)
        else:
            out.operands.append(arg)
            if not permute:
                out.operands.extend(args[i:])
                break
    return out


def _long(
    arg: str, args: list[str], i: int, longs: dict[str, str], abbreviations: bool, out: Options
) -> int:
    given, equals, value = arg.partition("=")
    name = long_name(given, longs, abbreviations=abbreviations)
    if name is None:
        out.unknown.append(given)
        return i
    kind = longs[name]
    if equals:
        out.found.append((name, value))
    elif kind == "valued":
        out.found.append((name, args[i] if i < len(args) else None))
        return i + 1
    else:
        out.found.append((name, None))
    return i


def long_name(given: str, known: Collection[str], *, abbreviations: bool = True) -> str | None:
    """The long option ``given`` names among ``known``: itself, or the only
    one it abbreviates; None when it names none or several."""
    if given in known:
        return given
    if not abbreviations or len(given) < 3:
        return None
    matches = [name for name in known if name.startswith(given)]
    return matches[0] if len(matches) == 1 else None


def _short(arg: str, args: list[str], i: int, flags: str, valued: str, out: Options) -> int:
    for at, letter in enumerate(arg[1:], start=2):
        if letter in valued:
            rest = arg[at:]
            if rest:
                out.found.append((f"-{letter}", rest))
                return i
            out.found.append((f"-{letter}", args[i] if i < len(args) else None))
            return i + 1
        if letter in flags:
            out.found.append((f"-{letter}", None))
        else:
            out.unknown.append(f"-{letter}")
    return i
