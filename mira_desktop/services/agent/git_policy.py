"""Which ``git`` commands only read (``commands.py``): status, log, diff,
show, blame, grep and the like always; ``branch``, ``tag``, ``remote``,
``stash``, ``config``… only in their listing forms. Every other subcommand,
and ``git -c`` (which can make git run programs), may change files."""

from __future__ import annotations

from collections.abc import Callable

# fmt: off
READ_ONLY = frozenset({
    "status", "log", "diff", "show", "ls-files", "grep", "rev-parse", "blame", "annotate",
    "shortlog", "describe", "ls-tree", "cat-file", "rev-list", "show-ref", "for-each-ref",
    "merge-base", "name-rev", "count-objects", "version", "help", "whatchanged", "var",
    "cherry", "diff-tree", "diff-files", "diff-index", "check-ignore", "check-attr",
    "ls-remote", "show-branch",
})
BRANCH_WRITES = frozenset({
    "-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force",
    "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track",
    "--no-track", "--create-reflog",
})
BRANCH_VALUES = frozenset({"--contains", "--no-contains", "--merged", "--no-merged",
                           "--points-at", "--sort", "--format"})
TAG_WRITES = frozenset({"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-u",
                        "--local-user", "-f", "--force", "-m", "--message", "-F", "--file"})
CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list",
                          "-l", "--get-color", "--get-colorbool"})
CONFIG_WRITES = frozenset({"--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e",
                           "--rename-section", "--remove-section"})
CONFIG_VALUES = frozenset({"-f", "--file", "--blob", "--type", "--default"})
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
    if any(a.startswith("--output") for a in rest):
        return f"runs git {sub} --output, which writes a file"
    if sub == "grep" and any(a.startswith(("-O", "--open-files-in-pager")) for a in rest):
        return "runs git grep -O, which opens a program"
    if sub in READ_ONLY:
        return None
    check = _LISTING.get(sub)
    return None if check and check(rest) else f"runs git {sub}"


def _options(args: list[str]) -> set[str]:
    return {a.split("=", 1)[0] for a in args if a.startswith("-")}


def _positionals(args: list[str], takes_value: frozenset[str]) -> list[str]:
    found, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in takes_value
        else:
            found.append(arg)
    return found


def _branch(rest: list[str]) -> bool:
    options = _options(rest)
    if options & BRANCH_WRITES:
        return False
    return bool(options & {"-l", "--list"}) or not _positionals(rest, BRANCH_VALUES)


def _tag(rest: list[str]) -> bool:
    options = _options(rest)
    if options & TAG_WRITES:
        return False
    return bool(options & {"-l", "--list", "-v", "--verify"}) or not _positionals(rest, frozenset())


def _config(rest: list[str]) -> bool:
    options = _options(rest)
    if options & CONFIG_WRITES:
        return False
    return bool(options & CONFIG_READS) or len(_positionals(rest, CONFIG_VALUES)) <= 1


_LISTING: dict[str, Callable[[list[str]], bool]] = {
    "branch": _branch,
    "tag": _tag,
    "config": _config,
    "remote": lambda rest: (
        not rest or rest in (["-v"], ["--verbose"]) or rest[0] in ("show", "get-url")
    ),
    "stash": lambda rest: rest[:1] in (["list"], ["show"]),
    "reflog": lambda rest: not rest or rest[0] not in ("expire", "delete", "drop"),
    "worktree": lambda rest: rest[:1] == ["list"],
    "notes": lambda rest: not rest or rest[0] in ("list", "show"),
    "submodule": lambda rest: not rest or rest[0] == "status",
}
