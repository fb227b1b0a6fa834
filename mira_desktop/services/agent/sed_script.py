"""Whether a ``sed`` command may change files or run commands, for
``commands.py``: in-place editing (``-i``, ``-I``, ``--in-place``, in any
cluster), a script from a file (``-f``), and in the script itself the
commands ``w``, ``W`` and ``e`` and the ``w`` and ``e`` flags of ``s``
(``s/a/b/gw out``, ``s/.*/cmd/e``).

The script is parsed the way sed reads it — addresses, commands, the parts
of ``s`` and ``y`` with any delimiter, text to the end of the line for
``a``, ``i``, ``c``, ``r`` — so that a ``w`` inside a regular expression is
not taken for a command, and a ``w`` flag after ``g`` is not missed. A
script it cannot follow (an unknown command, an unterminated ``s``, a
bracket expression that GNU and BSD sed could read differently) counts as
one that may write."""

from __future__ import annotations

from .cli_options import parse

WRITES = "has a sed script that writes files or runs commands"
UNSURE = "has a sed script that cannot be checked"
_SIMPLE = frozenset("=dDgGhHlLnNpPqQxzF")
# fmt: off
_LONG_FLAGS = frozenset({
    "--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered", "--null-data",
    "--zero-terminated", "--posix", "--debug", "--sandbox", "--follow-symlinks", "--binary",
    "--help", "--version",
})
# fmt: on


def sed_reason(args: list[str]) -> str | None:
    """Why ``sed ARGS`` may change files; None when it only reads."""
    options = parse(
        args,
        flags="nrEsuzabiI",
        valued="efl",
        long_flags=_LONG_FLAGS,
        long_valued={"--expression", "--file", "--line-length"},
        long_optional={"--in-place"},
    )
    in_place = [name for name, _ in options.found if name in ("-i", "-I", "--in-place")]
    if in_place:
        return f"runs sed {in_place[0]}, which edits files in place"
    if options.has("-f", "--file"):
        return "runs a sed script from a file"
    if options.unknown:
        return f"runs sed with an option that cannot be checked ({options.unknown[0]})"
    if any(not value.isdigit() for value in options.values("-l", "--line-length")):
        return UNSURE  # BSD sed's -l takes no value: the word after it is the script
    scripts = options.values("-e", "--expression")
    if not scripts:
        scripts = options.operands[:1]
    return script_reason("\n".join(scripts))


def script_reason(script: str) -> str | None:
    """Why a sed script may write files or run commands; None when it only reads."""
    try:
        _Parser(script).run()
    except _Writes:
        return WRITES
    except _Unsure:
        return UNSURE
    return None


class _Unsure(Exception):
    """The script cannot be followed."""


class _Writes(Exception):
    """A ``w``, ``W`` or ``e`` command, or an ``s`` command's ``w`` or ``e`` flag."""


class _Parser:
    def __init__(self, script: str) -> None:
        self.s = script
        self.i = 0

    def run(self) -> None:
        while True:
            self._skip(" \t\n;")
            if self.i >= len(self.s):
                return
            self._address()
            self._skip(" \t")
            while self._peek() == "!":
                self.i += 1
                self._skip(" \t")
            command = self._peek()
            self.i += 1
            if command in "wWe":
                raise _Writes
            self._command(command)

    def _command(self, command: str) -> None:
        if command == "{":
            return
        if command == "}" or command in _SIMPLE:
            self._skip(" \t")
            self._skip("0123456789")  # l N, q N, Q N
            self._end()
        elif command in ":btTv":
            self._skip(" \t")
            self._to_line_end(stops="\n;")  # GNU sed ends a label at ";" too
        elif command in "#rR":
            self._to_line_end(stops="\n")
        elif command in "aic":
            self._to_line_end(stops="\n", escapes=True)
        elif command == "s":
            self._substitute()
        elif command == "y":
            delimiter = self._delimiter()
            self.i = _plain_end(self.s, self.i, delimiter)
            self.i = _plain_end(self.s, self.i, delimiter)
            self._end()
        else:
            raise _Unsure

    def _substitute(self) -> None:
        delimiter = self._delimiter()
        self.i = _regex_end(self.s, self.i, delimiter)
        self.i = _plain_end(self.s, self.i, delimiter)
        while self.i < len(self.s) and (self.s[self.i] in "gpiImM" or self.s[self.i].isdigit()):
            self.i += 1
        if self._peek() in ("w", "e"):
            raise _Writes
        self._end()

    def _address(self) -> None:
        self._one_address()
        if self._peek() == ",":
            self.i += 1
            self._skip(" \t")
            if self._peek() in ("+", "~"):
                self.i += 1
            self._one_address()

    def _one_address(self) -> None:
        c = self._peek()
        if c.isdigit() or c == "$":
            self.i += 1
            self._skip("0123456789~")
        elif c in ("/", "\\"):
            if c == "\\":
                self.i += 1
            delimiter = self._delimiter()
            self.i = _regex_end(self.s, self.i, delimiter)
            self._skip("IM")

    def _delimiter(self) -> str:
        c = self._peek()
        if c in ("", "\n", "\\"):
            raise _Unsure
        self.i += 1
        return c

    def _end(self) -> None:
        """After a command: only a separator, a closing brace or a comment."""
        self._skip(" \t")
        if self._peek() not in ("", ";", "\n", "}", "#"):
            raise _Unsure

    def _to_line_end(self, *, stops: str, escapes: bool = False) -> None:
        """Skip a label, a file name or a text (``escapes``: continued on the
        next line after a backslash) up to one of ``stops``."""
        s = self.s
        while self.i < len(s) and s[self.i] not in stops:
            self.i += 2 if escapes and s[self.i] == "\\" else 1

    def _skip(self, chars: str) -> None:
        while self.i < len(self.s) and self.s[self.i] in chars:
            self.i += 1

    def _peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""


def _plain_end(s: str, i: int, delimiter: str) -> int:
    """The index after the unescaped ``delimiter`` ending the part at ``i``."""
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == delimiter:
            return i + 1
        if c == "\n":
            break
        i += 1
    raise _Unsure


def _regex_end(s: str, i: int, delimiter: str) -> int:
    """As :func:`_plain_end` for a regular expression; unsure when reading
    its bracket expressions (``[/]``) as GNU and BSD sed do, or not, moves
    the end."""
    plain = _plain_end(s, i, delimiter)
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "[":
            i = _bracket_end(s, i)
        elif c == delimiter:
            break
        elif c == "\n":
            raise _Unsure
        else:
            i += 1
    if i + 1 != plain:
        raise _Unsure
    return plain


def _bracket_end(s: str, i: int) -> int:
    """The index after the bracket expression starting at ``i``."""
    j = i + 1
    if s[j : j + 1] == "^":
        j += 1
    if s[j : j + 1] == "]":
        j += 1
    while j < len(s) and s[j] != "]":
        if s[j] == "[" and s[j + 1 : j + 2] in (":", ".", "="):
            close = s.find(s[j + 1] + "]", j + 2)
            if close < 0:
                raise _Unsure
            j = close + 2
        elif s[j] == "\n":
            raise _Unsure
        else:
            j += 1
    if j >= len(s):
        raise _Unsure
    return j + 1
