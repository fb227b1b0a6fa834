"""Checks for programs that only read when used in some ways, for
``commands.py``: each returns None when the arguments keep the program
read-only, else a short English reason. Options are read as the programs
read them (``cli_options``); an option a check does not know counts as
one that may write, so what is allowed is listed, not what is not."""

from __future__ import annotations

from .cli_options import parse

# fmt: off
#: tar's options that are safe while listing (any other, such as
#: --checkpoint-action, --to-command, --use-compress-program, -I, -F,
#: --info-script, --new-volume-script, --rsh-command or --index-file, asks)
_TAR_FLAGS = "tvzjJZOPBi"
_TAR_VALUED = "fCTXbH"
_TAR_LONG_FLAGS = frozenset({
    "--list", "--verbose", "--gzip", "--gunzip", "--ungzip", "--bzip2", "--xz", "--lzma",
    "--lzip", "--lzop", "--zstd", "--compress", "--uncompress", "--auto-compress",
    "--to-stdout", "--absolute-names", "--wildcards", "--no-wildcards", "--anchored",
    "--no-anchored", "--ignore-case", "--no-ignore-case", "--numeric-owner", "--utc",
    "--full-time", "--block-number", "--totals", "--ignore-zeros", "--force-local",
    "--show-transformed-names", "--show-stored-names", "--null", "--no-null",
    "--verbatim-files-from", "--no-verbatim-files-from", "--wildcards-match-slash",
    "--no-wildcards-match-slash", "--recursion", "--no-recursion", "--unquote",
    "--no-unquote", "--seek", "--no-seek", "--help", "--usage", "--version",
    "--show-defaults",
})
_TAR_LONG_VALUED = frozenset({
    "--file", "--directory", "--files-from", "--exclude", "--exclude-from",
    "--blocking-factor", "--record-size", "--format", "--transform", "--xform",
    "--strip-components", "--newer", "--after-date", "--newer-mtime", "--quoting-style",
    "--quote-chars", "--no-quote-chars",
})
# fmt: on
#: unzip's options that list, test or print to standard output, and quiet
_UNZIP_MODES = "lvtZpcz"
_UNZIP_FLAGS = _UNZIP_MODES + "qC"


def tar_reason(args: list[str]) -> str | None:
    """Only a listing (``-t`` / ``--list``) with the options above reads only."""
    if args and not args[0].startswith("-"):
        args = _old_tar_options(args[0], args[1:])
    options = parse(
        args,
        flags=_TAR_FLAGS,
        valued=_TAR_VALUED,
        long_flags=_TAR_LONG_FLAGS,
        long_valued=_TAR_LONG_VALUED,
    )
    if options.unknown:
        return f"runs tar {options.unknown[0]}, which may write files or run programs"
    if not options.has("-t", "--list"):
        return "runs tar, which writes files unless it only lists an archive"
    remote = any(":" in name.split("/", 1)[0] for name in options.values("-f", "--file"))
    if remote and not options.has("--force-local"):
        return "runs tar on an archive on another machine (HOST:FILE), which runs a program"
    return None


def _old_tar_options(letters: str, rest: list[str]) -> list[str]:
    """``tar tzf a.tgz`` as ``tar -t -z -f a.tgz``: in the old form the
    values of the letters that take one follow in order."""
    out, values = [], iter(rest)
    for letter in letters:
        out.append(f"-{letter}")
        if letter in _TAR_VALUED:
            value = next(values, None)
            if value is not None:
                out.append(value)
    return out + list(values)


def unzip_reason(args: list[str]) -> str | None:
    """Only listing, testing or printing to standard output reads only; a
    bare ``unzip a.zip`` (with ``-q`` or not) extracts."""
    if args[:1] == ["-Z"]:
        return None  # zipinfo's mode: its options only choose what to list
    options = parse(args, flags=_UNZIP_FLAGS)
    if options.unknown:
        return f"runs unzip {options.unknown[0]}, which may write files"
    if not any(options.has(f"-{mode}") for mode in _UNZIP_MODES):
        return "runs unzip, which extracts files unless it only lists, tests or prints them"
    return None


# fmt: off
_SORT_LONG_FLAGS = frozenset({
    "--ignore-leading-blanks", "--dictionary-order", "--ignore-case",
    "--general-numeric-sort", "--ignore-nonprinting", "--month-sort", "--human-numeric-sort",
    "--numeric-sort", "--random-sort", "--reverse", "--version-sort", "--merge", "--stable",
    "--unique", "--zero-terminated", "--debug", "--help", "--version",
})
_SORT_LONG_VALUED = frozenset({
    "--key", "--field-separator", "--output", "--buffer-size", "--temporary-directory",
    "--compress-program", "--random-source", "--files0-from", "--parallel", "--batch-size",
    "--sort",
})
# fmt: on


def sort_reason(args: list[str]) -> str | None:
    """sort writes with ``-o``/``--output`` (in a cluster too: ``-uo out``)
    and runs ``--compress-program``."""
    options = parse(
        args,
        flags="bdfghiMmnRrsuVcCz",
        valued="ktoST",
        long_flags=_SORT_LONG_FLAGS,
        long_valued=_SORT_LONG_VALUED,
        long_optional={"--check"},
    )
    if options.has("--compress-program"):
        return "runs sort --compress-program, which runs a program"
    written = [name for name, _ in options.found if name in ("-o", "--output")]
    if written:
        return f"writes to a file ({written[0]})"
    if options.unknown:
        return f"runs sort {options.unknown[0]}, which may write files"
    return None


def tree_reason(args: list[str]) -> str | None:
    """tree writes with ``-o FILE`` and, with ``-R``, an ``00Tree.html`` in
    every folder; it reads its options letter by letter (``-ao out``)."""
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--o"):
            return "writes to a file (--output)"
        if arg.startswith("-") and not arg.startswith("--") and set(arg[1:]) & {"o", "R"}:
            return "writes to a file (-o, -R)"
    return None


def date_reason(args: list[str]) -> str | None:
    """``date -s`` / ``--set`` sets the clock."""
    options = parse(
        args,
        flags="uRjn",
        valued="dfrsvI",
        long_flags={"--universal", "--rfc-email", "--debug", "--help", "--version"},
        long_valued={"--date", "--file", "--reference", "--set", "--rfc-3339"},
        long_optional={"--iso-8601", "--resolution"},
    )
    return "sets the clock" if options.has("-s", "--set") else None


def uniq_reason(args: list[str]) -> str | None:
    """``uniq IN OUT`` writes OUT."""
    options = parse(
        args,
        flags="cdDiuz",
        valued="fsw",
        long_flags={"--count", "--repeated", "--ignore-case", "--unique", "--zero-terminated"},
        long_valued={"--skip-fields", "--skip-chars", "--check-chars"},
        long_optional={"--all-repeated", "--group"},
    )
    return "writes to a file (uniq's second operand)" if len(options.operands) > 1 else None
