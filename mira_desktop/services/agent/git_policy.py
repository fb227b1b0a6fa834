"""Which ``git`` commands only read (``commands.py``): status, log, diff,
show, blame, grep and the like always; ``branch``, ``tag``, ``remote``,
``stash``, ``config``… only in their listing forms, their options read as
git's parse-options reads them (clusters, unique abbreviations). Options
that write a file or run a program (``--output``, ``--ext-diff``,
``ls-remote --upload-pack``, ``grep -O``…) ask whatever the subcommand.
Every other subcommand, and ``git -c`` (which can make git run programs),
may change files."""

from __future__ import annotations

from collections.abc import Callable

from .cli_options import parse

# fmt: off
READ_ONLY = frozenset({
    "status", "log", "diff", "show", "ls-files", "grep", "rev-parse", "blame", "annotate",
    "shortlog", "describe", "ls-tree", "cat-file", "rev-list", "show-ref", "for-each-ref",
    "merge-base", "name-rev", "count-objects", "version", "help", "whatchanged", "var",
    "cherry", "diff-tree", "diff-files", "diff-index", "check-ignore", "check-attr",
    "ls-remote", "show-branch",
})
#: options that make a read-only subcommand write a file or run a program:
#: ``--output=FILE``; external diff and textconv programs; filters; the
#: program run on the other end (``ls-remote --upload-pack='touch p' .``
#: runs it here); the pager of ``grep -O``. git's parse-options accepts
#: any unique abbreviation (``--upload=…``), so a prefix of one counts.
DANGEROUS = frozenset({
    "--output", "--ext-diff", "--textconv", "--filters", "--upload-pack", "--receive-pack",
    "--exec", "--open-files-in-pager", "--web",
})
#: real options that happen to be prefixes of dangerous ones
HARMLESS = frozenset({"--text", "--filter"})
LS_REMOTE_FLAGS = frozenset({"--quiet", "--tags", "--heads", "--branches", "--refs",
                             "--get-url", "--symref", "--exit-code"})
BRANCH_READS = frozenset({"--list", "--show-current", "--verbose", "--quiet", "--no-abbrev",
                          "--no-column", "--ignore-case", "--omit-empty", "--remotes", "--all",
                          "--no-color", "--recurse-submodules"})
BRANCH_WRITES = frozenset({"--delete", "--move", "--copy", "--force", "--set-upstream-to",
                           "--unset-upstream", "--edit-description", "--track", "--no-track",
                           "--create-reflog"})
BRANCH_VALUES = frozenset({"--contains", "--no-contains", "--merged", "--no-merged",
                           "--points-at", "--sort", "--format"})
#: options whose value comes only after "=" (``--column newbranch`` creates it)
OPTIONAL_VALUES = frozenset({"--abbrev", "--column", "--color"})
TAG_READS = frozenset({"--list", "--verify", "--no-column", "--ignore-case", "--omit-empty",
                       "--no-color"})
TAG_WRITES = frozenset({"--delete", "--annotate", "--sign", "--local-user", "--force",
                        "--message", "--file", "--edit", "--no-edit", "--cleanup",
                        "--create-reflog", "--trailer"})
TAG_VALUES = frozenset({"--contains", "--no-contains", "--merged", "--no-merged",
                        "--points-at", "--sort", "--format"})
CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list",
                          "--get-color", "--get-colorbool"})
CONFIG_WRITES = frozenset({"--unset", "--unset-all", "--add", "--replace-all", "--edit",
                           "--rename-section", "--remove-section"})
CONFIG_FLAGS = frozenset({"--global", "--system", "--local", "--worktree", "--show-origin",
                          "--show-scope", "--name-only", "--includes", "--no-includes",
                          "--null", "--bool", "--int", "--bool-or-int", "--path",
                          "--expiry-date", "--fixed-value", "--no-type"})
CONFIG_VALUES = frozenset({"--file", "--blob", "--type", "--default"})
#: ``git config SUBCOMMAND`` (git 2.46) that change the configuration
CONFIG_SUBCOMMANDS = frozenset({"set", "unset", "edit", "rename-section", "remove-section"})
# global options that take a value
GLOBAL_VALUES = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
# fmt: on


def git_reason(args: list[str]) -> str | None:
    """``None`` when ``git ARGS`` only reads, else why it may change files."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-c" or args[i].startswith(("--config-env", "--exec-path=")):
            return "runs git with changed configuration"
        i += 2 if args[i] in GLOBAL_VALUES else 1
    if i >= len(args):
        return None  # plain "git" prints its help
    sub, rest = args[i], args[i + 1 :]
    if reason := _dangerous_option(sub, rest):
        return reason
    if sub in READ_ONLY:
        return None
    check = _LISTING.get(sub)
    return None if check and check(rest) else f"runs git {sub}"


def _dangerous_option(sub: str, rest: list[str]) -> str | None:
    for arg in rest:
        if arg == "--":
            break
        name = arg.split("=", 1)[0]
        if name.startswith("--") and len(name) > 2 and name not in HARMLESS:
            if any(option.startswith(name) for option in DANGEROUS):
                return f"runs git {sub} {name}, which writes a file or runs a program"
    if sub == "grep" and any(_short_letters(arg, "eABCfm").count("O") for arg in rest):
        return "runs git grep -O, which opens a program"
    if sub == "help" and any("w" in _short_letters(arg, "") for arg in rest):
        return "runs git help -w, which opens a program"
    if sub == "ls-remote":
        options = parse(rest, flags="qthb", valued="o", long_flags=LS_REMOTE_FLAGS,
                        long_valued={"--sort", "--server-option"})  # fmt: skip
        if options.unknown:
            return f"runs git ls-remote {options.unknown[0]}, which may run a program"
    return None


def _short_letters(arg: str, valued: str) -> str:
    """The option letters of a short cluster, up to one that takes a value."""
    if not arg.startswith("-") or arg.startswith("--"):
        return ""
    letters = ""
    for letter in arg[1:]:
        letters += letter
        if letter in valued:
            break
    return letters


def _listing(
    rest: list[str],
    *,
    flags: str,
    valued: str,
    reads: frozenset[str],
    writes: frozenset[str],
    values: frozenset[str],
    flags_that_list: tuple[str, ...],
    short_writes: str,
) -> bool:
    """Whether a subcommand with listing and changing forms only lists:
    no option that changes, none unknown, and a listing option or no
    operand."""
    options = parse(
        rest,
        flags=flags + short_writes,
        valued=valued,
        long_flags=reads | writes,
        long_valued=values,
        long_optional=OPTIONAL_VALUES,
    )
    if options.unknown:
        return False
    for name, _ in options.found:
        if name in writes or (len(name) == 2 and name[1] in short_writes):
            return False
    return options.has(*flags_that_list) or not options.operands


def _branch(rest: list[str]) -> bool:
    return _listing(
        rest,
        flags="arlvqi",
        valued="u",
        reads=BRANCH_READS,
        writes=BRANCH_WRITES,
        values=BRANCH_VALUES,
        flags_that_list=("-l", "--list"),
        short_writes="dDmMcCftu",
    )


def _tag(rest: list[str]) -> bool:
    return _listing(
        rest,
        flags="lvi0123456789n",
        valued="umF",
        reads=TAG_READS,
        writes=TAG_WRITES,
        values=TAG_VALUES,
        flags_that_list=("-l", "--list", "-v", "--verify"),
        short_writes="dasfeumF",
    )


def _config(rest: list[str]) -> bool:
    options = parse(
        rest,
        flags="lze",
        valued="f",
        long_flags=CONFIG_READS | CONFIG_WRITES | CONFIG_FLAGS,
        long_valued=CONFIG_VALUES,
    )
    if options.unknown or options.has("-e", *CONFIG_WRITES):
        return False
    if options.operands[:1] and options.operands[0] in CONFIG_SUBCOMMANDS:
        return False
    return options.has("-l", *CONFIG_READS) or len(options.operands) <= 1


_LISTING: dict[str, Callable[[list[str]], bool]] = {
    "branch": _branch,
    "tag": _tag,
    "config": _config,
    "remote": lambda rest: (
        not rest or rest in (["-v"], ["--verbose"]) or rest[0] in ("show", "get-url")
    ),
    "stash": lambda rest: rest[:1] in (["list"], ["show"]),
    "reflog": lambda rest: not rest or rest[0] in ("show", "exists") or rest[0].startswith("-"),
    "worktree": lambda rest: rest[:1] == ["list"],
    "notes": lambda rest: not rest or rest[0] in ("list", "show"),
    "submodule": lambda rest: not rest or rest[0] == "status",
}
