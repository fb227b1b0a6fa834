"""Whether a shell command may change files (PRODUCT.md §11): in manual mode
a command that may asks for approval first; a read-only one runs directly.

The policy is an allowlist. A command is read-only only when every part of it
is: each command of a list or pipeline (``;``, ``&&``, ``||``, ``|``, ``&``,
newlines), every substitution (``$(…)``, backticks, ``<(…)``), and every
redirection (``>`` / ``>>`` only to ``/dev/null`` or the standard streams,
``2>&1`` and other descriptor copies are fine), every arithmetic or ``${…}``
expansion (only literal numbers and plain forms: ``evaluation.py``). Each
command must be a known read-only program (``ls``, ``cat``, ``grep``…) used
without the options that make it write (``sed -i``, ``find -exec`` / ``-delete``, ``sort -o``…), or a
read-only ``git`` subcommand (``git_policy.py``). Anything else — an unknown
program, a script, an interpreter, a heredoc, ``xargs``, unbalanced quotes —
counts as changing files."""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Callable

from .awk_program import awk_reason
from .cli_options import parse
from .evaluation import (
    conditional_reason,
    evaluation_reason,
    printf_reason,
    read_reason,
    test_reason,
)
from .git_policy import git_reason
from .program_checks import (
    date_reason,
    sort_reason,
    tar_reason,
    tree_reason,
    uniq_reason,
    unzip_reason,
)
from .sed_script import sed_reason
from .shell_syntax import SUBSTITUTION, ShellSyntaxError, lex

# fmt: off
READ_ONLY = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "zgrep", "zcat", "bzcat",
    "xzcat", "rg", "ag", "pwd", "echo", "printf", "stat", "file", "du", "df", "cut", "diff",
    "diff3", "cmp", "comm", "which", "type", "whereis", "printenv", "true", "false", "test",
    "[", "[[", ":", "basename", "dirname", "realpath", "readlink", "md5sum", "sha1sum",
    "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shasum", "cksum", "b2sum", "md5",
    "nl", "tac", "rev", "tr", "column", "fold", "fmt", "expand", "unexpand", "paste", "join",
    "od", "hexdump", "strings", "jq", "whoami", "id", "uname", "locale", "nproc", "uptime",
    "ps", "cd", "pushd", "popd", "sleep", "seq", "expr", "read", "exit", "set", "shopt",
    "unset", "zipinfo", "cal",
})
INTERPRETERS = frozenset({
    "node", "nodejs", "deno", "bun", "perl", "ruby", "irb", "php", "lua", "luajit", "tclsh",
    "Rscript", "R", "julia", "osascript", "pwsh", "powershell", "bash", "sh", "zsh", "dash",
    "ksh", "fish", "csh", "tcsh", "busybox", "ipython", "jshell", "groovy", "eval", "source",
    ".", "sudo", "doas", "su",
})
WRITERS = frozenset({
    "rm", "rmdir", "mv", "cp", "mkdir", "chmod", "chown", "chgrp", "touch", "ln", "truncate",
    "dd", "install", "patch", "tee", "shred", "unlink", "rsync", "xargs", "mktemp", "split",
    "csplit", "mkfifo", "mknod",
})
KEYWORDS = frozenset({"!", "if", "then", "else", "elif", "do", "while", "until", "time", "{",
                      "}", "fi", "done", "esac"})
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                          "-fprint0", "-fprintf", "-fls"})
# fmt: on
SAFE_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
#: the folders a command named by its path may be in to count as the tool of
#: that name: the system's own, which only an administrator can write. Not
#: /usr/local/bin or /opt/homebrew/bin: on macOS they belong to the user
#: (Homebrew), so a program there named "ls" is no proof of being ls. A bare
#: name is taken as the tool it names: it is what the user's own shell runs.
SYSTEM_BIN = frozenset({"/bin", "/usr/bin"})
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\+?=")
_RISKY_VARIABLE = re.compile(
    r"^(?:PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|EDITOR|VISUAL"
    r"|RIPGREP_CONFIG_PATH|TAR_OPTIONS|UNZIP|UNZIPOPT|ZIPINFO|ZIPINFOOPT"
    r"|LD_\w*|DYLD_\w*|GIT_\w*|\w*PAGER\w*)$"
)
_PYTHON = re.compile(r"^(?:python|pypy)[0-9.]*$")
#: wrappers that run a command after their options: (flags, options with a
#: value, long flags, long options with a value, operands before the command)
_WRAPPERS: dict[str, tuple[str, str, frozenset[str], frozenset[str], int]] = {
    "env": (
        "i0v",
        "uCS",
        frozenset({"--ignore-environment", "--null", "--debug", "--list-signal-handling"}),
        frozenset({"--unset", "--chdir", "--split-string"}),
        0,
    ),
    "nice": ("", "n", frozenset(), frozenset({"--adjustment"}), 0),
    "timeout": (
        "fpv",
        "sk",
        frozenset({"--foreground", "--preserve-status", "--verbose"}),
        frozenset({"--signal", "--kill-after"}),
        1,
    ),
    "stdbuf": ("", "ioe", frozenset(), frozenset({"--input", "--output", "--error"}), 0),
    "exec": ("cl", "a", frozenset(), frozenset(), 0),
    "command": ("pvV", "", frozenset(), frozenset(), 0),
    **{name: ("", "", frozenset(), frozenset(), 0) for name in ("nohup", "builtin")},
}
#: env's options that ask for signals to be blocked or ignored, with or without a value
_ENV_SIGNALS = frozenset({"--block-signal", "--default-signal", "--ignore-signal"})


def mutation_reason(command: str, platform: str = sys.platform) -> str | None:
    """``None`` when ``command`` only reads; otherwise a short English reason
    it may change files ("runs rm", "redirects output to a file").
    ``platform``: where it runs — on Windows (``"win32"``) the shell is
    cmd.exe, whose quoting and operators differ (:func:`_cmd_reason`)."""
    if platform == "win32":
        return _cmd_reason(command)
    try:
        lexed = lex(command)
    except ShellSyntaxError:
        return "has unbalanced quotes or brackets, so it cannot be checked"
    for inner in lexed.inner:
        if reason := mutation_reason(inner):
            return reason
    if reason := evaluation_reason(lexed.arithmetic, lexed.parameters):
        return reason
    words: list[str] = []
    tokens = iter(lexed.tokens)
    for kind, text in tokens:
        if kind == "word":
            words.append(text)
        elif text in ("<<", "<<-", "<<<"):
            return "uses a heredoc"
        elif text == "<>":
            return "opens a file for writing"
        elif text[0] in "<>&" and text not in ("&", "&&"):  # a redirection and its target
            target = next(tokens, ("op", ""))[1]
            if text[0] != "<" and not _harmless_target(text, target):
                return "redirects output to a file"
        else:  # ; && || | |& & ( ) ;;
            if reason := _segment_reason(words):
                return reason
            words = []
    return _segment_reason(words)


def _cmd_reason(command: str) -> str | None:
    """A command for cmd.exe, judged conservatively: single quotes do not
    quote there and ``#`` starts no comment, so ``echo ' & del x & '`` runs
    del. Any of ``& | < > ^ ( )`` or a line break outside double quotes,
    and ``%`` or ``!`` anywhere (cmd.exe expands variables inside quotes
    too, before it reads the line), asks; what is left is one command whose
    words are split at spaces outside double quotes, and whose name holds
    none of the characters that also end it there (``del=x ls`` runs del)."""
    words: list[str] = []
    word: list[str] | None = None
    quoted = False
    for c in command:
        if c in "%!":
            return f"uses {c}, which cmd.exe expands before it reads the command"
        if c in "\r\n" or (not quoted and c in "&|<>^()"):
            return f"uses {c!r}, which cmd.exe reads as an operator"
        if c == '"':
            quoted = not quoted
            word = word if word is not None else []
        elif c in " \t" and not quoted:
            if word is not None:
                words.append("".join(word))
            word = None
        else:
            word = (word if word is not None else []) + [c]
    if quoted:
        return "has an unbalanced double quote, so it cannot be checked"
    if word is not None:
        words.append("".join(word))
    if not words:
        return None
    if any(c in words[0] for c in "=,;"):  # cmd.exe ends a command's name there: del=x
        return f"runs {words[0]}, which cmd.exe reads differently"
    return _command_reason(words[0], words[1:])


def _harmless_target(op: str, target: str) -> bool:
    if op == ">&" and re.fullmatch(r"[0-9]*-?", target) and target:
        return True  # 2>&1, >&2, 3>&-: copies a descriptor
    return target in SAFE_SINKS


def _segment_reason(words: list[str]) -> str | None:
    while words and words[0] in KEYWORDS:
        words = words[1:]
    if words and words[0] == "for":
        return None  # "for NAME in WORDS": only sets a variable
    while words and (match := _ASSIGNMENT.match(words[0])):
        if _RISKY_VARIABLE.match(match.group(1)):
            return f"sets {match.group(1)}, which changes what the shell runs"
        words = words[1:]
    if not words:
        return None
    return _command_reason(words[0], words[1:])


def _command_reason(word: str, args: list[str]) -> str | None:
    if SUBSTITUTION in word:
        return "runs a command whose name comes from a substitution"
    name = word
    if "/" in word:  # normalised first: /bin/../home/me/ls is not in /bin
        path = posixpath.normpath(word)
        if posixpath.dirname(path) not in SYSTEM_BIN:
            return f"runs {word}"
        name = posixpath.basename(path)
    if name in _WRAPPERS:
        return _wrapper_reason(name, args)
    if name in _CHECKED:
        return _CHECKED[name](args)
    if name in READ_ONLY:
        return None
    if name in WRITERS:
        return f"runs {name}"
    if name in INTERPRETERS or _PYTHON.match(name):
        return None if args == ["--version"] else f"runs {name}, which can run any code"
    return f"runs {name}, which is not known to be read-only"


def _wrapper_reason(name: str, args: list[str]) -> str | None:
    """The command a wrapper runs, judged; its options read as the wrapper
    reads them (``env -iS'touch p'`` is ``-i -S 'touch p'``)."""
    flags, valued, long_flags, long_valued, operands = _WRAPPERS[name]
    if name == "nice" and args and re.fullmatch(r"-[0-9]+", args[0]):
        args = args[1:]  # the old form "nice -10 command"
    options = parse(
        args,
        flags=flags,
        valued=valued,
        long_flags=long_flags,
        long_valued=long_valued,
        long_optional=_ENV_SIGNALS if name == "env" else (),
        permute=False,
    )
    if options.has("-S", "--split-string"):
        return "runs env -S, which splits a string into a command"
    if options.unknown:
        return f"runs {name} with an option that cannot be checked ({options.unknown[0]})"
    if options.has("-v", "-V") and name == "command":
        return None  # only says what a name is
    rest = options.operands
    if name == "env":
        while rest[:1] == ["-"]:  # "env -" is "env -i"
            rest = rest[1:]
    return _segment_reason(rest[operands:])


def _positionals(args: list[str], takes_value: frozenset[str] = frozenset()) -> list[str]:
    found, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and arg != "-":
            skip = arg in takes_value
        else:
            found.append(arg)
    return found


def _find(args: list[str]) -> str | None:
    action = next((a for a in args if a in FIND_ACTIONS), None)
    return f"runs find {action}" if action else None


def _export(args: list[str]) -> str | None:
    for arg in args:
        name = arg.split("=", 1)[0]
        if _RISKY_VARIABLE.match(name):
            return f"sets {name}, which changes what the shell runs"
    return None


_CHECKED: dict[str, Callable[[list[str]], str | None]] = {
    "find": _find,
    "sed": sed_reason,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), awk_reason),
    "git": git_reason,
    "tar": tar_reason,
    "unzip": unzip_reason,
    "sort": sort_reason,
    "tree": tree_reason,
    "date": date_reason,
    "rg": lambda a: "runs rg --pre" if any(x.startswith("--pre") for x in a) else None,
    "uniq": uniq_reason,
    "hostname": lambda a: "sets the host name" if _positionals(a) else None,
    "export": _export,
    "[[": conditional_reason,
    "test": test_reason,
    "[": test_reason,
    "printf": printf_reason,
    "read": read_reason,
}
