"""Splitting a shell command into words and operators, enough to judge what
it does (``commands.py``); it never runs anything.

The lexer follows POSIX sh quoting (single quotes, double quotes, backslash),
drops comments, and cuts out every command substitution (``$(…)``, backticks)
and process substitution (``<(…)``, ``>(…)``): their text is returned
separately so it can be judged too, and the word they were part of holds
:data:`SUBSTITUTION` in their place. The text of every arithmetic expansion
(``$((…))``, ``$[…]``) and of every braced parameter expansion (``${…}``)
is kept as well: bash evaluates them — a variable's value inside arithmetic,
an array index, a ``${x@P}`` prompt — and that runs the command
substitutions they hold. A digit string right before a redirection (``2>``)
is the file descriptor, not a word. Unbalanced quotes or brackets raise
:class:`ShellSyntaxError`."""

from __future__ import annotations

from dataclasses import dataclass, field

#: stands in a word for the output of a substitution
SUBSTITUTION = "\x00"
# longest first, so ">>" is not read as two ">"
OPERATORS = (
    "<<<", "<<-", "&>>", "<<", ">>", ">|", ">&", "<&", "<>", "&>",
    "&&", "||", "|&", ";;", ";&", "<", ">", "&", "|", ";", "(", ")",
)  # fmt: skip


class ShellSyntaxError(ValueError):
    """Unbalanced quotes, brackets or backticks."""


@dataclass
class Lexed:
    """``tokens``: ``("word", text)`` or ``("op", operator)``; a newline is
    the operator ``;``. ``inner``: the text of every substitution;
    ``arithmetic``: of every ``$((…))`` and ``$[…]``; ``parameters``: of
    every ``${…}`` (without the braces)."""

    tokens: list[tuple[str, str]] = field(default_factory=list)
    inner: list[str] = field(default_factory=list)
    arithmetic: list[str] = field(default_factory=list)
    parameters: list[str] = field(default_factory=list)


def lex(command: str) -> Lexed:
    """The words, operators and substitutions of ``command``."""
    return _Lexer(command).run()


class _Lexer:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.out = Lexed()
        self.word: list[str] | None = None
        self.quoted = False

    def run(self) -> Lexed:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\r":
                self._flush()
                self.i += 1
            elif c == "\n":
                self._flush()
                self.out.tokens.append(("op", ";"))
                self.i += 1
            elif c == "#" and self.word is None:
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            elif c == "\\":
                if s.startswith("\\\n", self.i):
                    self.i += 2
                else:
                    self._add(s[self.i + 1 : self.i + 2], quoted=True)
                    self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unbalanced single quote")
                self._add(s[self.i + 1 : end], quoted=True)
                self.i = end + 1
            elif c == '"':
                self.i = self._double_quoted(self.i + 1)
            elif c == "`" or s.startswith("$(", self.i):
                self.i = self._substitution(self.i)
            elif s.startswith(("${", "$["), self.i):
                self.i = self._expansion(self.i)
            elif c in "<>" and s.startswith("(", self.i + 1):
                self._flush()
                self.i = self._substitution(self.i)
                self._flush()
            elif c in "<>&|;()":
                self._operator()
            else:
                self._add(c)
                self.i += 1
        self._flush()
        return self.out

    def _add(self, text: str, *, quoted: bool = False) -> None:
        if self.word is None:
            self.word, self.quoted = [], False
        self.word.append(text)
        self.quoted = self.quoted or quoted

    def _flush(self) -> None:
        if self.word is not None:
            self.out.tokens.append(("word", "".join(self.word)))
        self.word = None

    def _operator(self) -> None:
        op = next(o for o in OPERATORS if self.s.startswith(o, self.i))
        word = "".join(self.word) if self.word is not None else ""
        if op[0] in "<>" and word.isdigit() and not self.quoted:
            self.word = None  # "2>": a file descriptor, not an argument
        self._flush()
        self.out.tokens.append(("op", op))
        self.i += len(op)

    def _double_quoted(self, j: int) -> int:
        s = self.s
        self._add("", quoted=True)
        while j < len(s):
            c = s[j]
            if c == '"':
                return j + 1
            if c == "\\" and j + 1 < len(s):
                nxt = s[j + 1]
                self._add("" if nxt == "\n" else nxt if nxt in '$`"\\' else c + nxt)
                j += 2
            elif c == "`" or s.startswith("$(", j):
                j = self._substitution(j)
            elif s.startswith(("${", "$["), j):
                j = self._expansion(j)
            else:
                self._add(c)
                j += 1
        raise ShellSyntaxError("unbalanced double quote")

    def _expansion(self, j: int) -> int:
        """Note the text of ``${…}`` or ``$[…]`` starting at ``j``; the lexer
        goes on inside it (for the substitutions it holds)."""
        s = self.s
        if s[j + 1] == "[":
            end = closing_bracket(s, j + 1, "[", "]")
            self.out.arithmetic.append(s[j + 2 : end])
            self._add(SUBSTITUTION)
            return end + 1
        end = closing_bracket(s, j + 1, "{", "}")
        self.out.parameters.append(s[j + 2 : end])
        self._add("${")
        return j + 2

    def _substitution(self, j: int) -> int:
        """Cut out the substitution starting at ``j``; return the index after it."""
        s = self.s
        if s[j] == "`":
            end = j + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                raise ShellSyntaxError("unbalanced backtick")
            self.out.inner.append(s[j + 1 : end].replace("\\`", "`"))
            self._add(SUBSTITUTION)
            return end + 1
        start = j + 1  # the "(" after "$", "<" or ">"
        end = closing_paren(s, start)
        if s[j] == "$" and s.startswith("((", start) and s[end - 1] == ")":
            self.out.arithmetic.append(s[start + 2 : end - 1])  # $((…))
        else:
            self.out.inner.append(s[start + 1 : end])
        self._add(SUBSTITUTION)
        return end + 1


def closing_paren(s: str, start: int) -> int:
    """The index of the ``)`` matching the ``(`` at ``start``, skipping quoted text."""
    return closing_bracket(s, start, "(", ")")


def closing_bracket(s: str, start: int, opening: str, closing: str) -> int:
    """The index of the ``closing`` matching the ``opening`` at ``start``,
    skipping quoted text."""
    depth, j = 0, start
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "'":
            j = s.find("'", j + 1)
            if j < 0:
                break
        elif c == '"':
            j += 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            if j >= len(s):
                break
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ShellSyntaxError(f"unbalanced {opening}")


def command_words(command: str) -> list[str]:
    """Every word of ``command`` and of its substitutions that may name a
    path: the words themselves, what follows an ``=`` (``of=out``,
    ``--output=out``) and what follows a short option (``-oout``); words
    made with a substitution are left out. Empty when it cannot be lexed."""
    try:
        lexed = lex(command)
    except ShellSyntaxError:
        return []
    words = []
    for kind, text in lexed.tokens:
        if kind != "word" or SUBSTITUTION in text:
            continue
        words.append(text)
        if "=" in text:
            words.append(text.rsplit("=", 1)[1])
        if text.startswith("-") and not text.startswith("--") and len(text) > 2:
            words.append(text[2:])
    for inner in lexed.inner:
        words.extend(command_words(inner))
    return words
