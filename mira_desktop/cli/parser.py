"""The argument parser of ``mira-desktop``: global options, the GUI options, and
one sub-command per area. Sub-commands and flags named in the issues are a public
contract (scripts use them); add, never rename.

Opening the window needs no sub-command: :func:`parse_arguments` builds the parser
without them (importing no command module) unless the arguments name a command,
carry another positional argument, or ask for help."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from types import ModuleType

from .. import __version__

#: ``NAME`` of every module in :func:`command_modules`, in the same order (a test
#: keeps them equal): the window's launch tells commands from files without
#: importing the command modules.
COMMAND_NAMES = (
    "provider",
    "chat",
    "thread",
    "search",
    "workspace",
    "doctor",
    "role",
    "export",
    "import",
    "kb",
    "tokens",
    "dev",
    "agent",
    "model",
    "transcribe",
)
_HELP_OPTIONS = frozenset({"-h", "--help"})


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed, with the window's files in ``args.files`` (see
    :func:`split_window_files`). Sub-command modules are imported only when
    the arguments may need them: a plain window launch skips that."""
    parser = build_parser(commands=False)
    rest, files = split_window_files(parser, argv)
    if _may_need_commands(parser, rest):
        # one named command loads its own module only (a command line run
        # starts ~0.2 s sooner than with all of them); help or a mistyped
        # command gets the whole parser, which lists them all
        named = _named_command(parser, rest)
        parser = build_parser(only=named) if named else build_parser()
        rest, files = split_window_files(parser, argv)
    args = parser.parse_args(rest)
    if not hasattr(args, "command"):
        args.command = None
    args.files = files  # `mira-desktop FILE...`: for the window
    return args


def _may_need_commands(parser: argparse.ArgumentParser, rest: Sequence[str]) -> bool:
    """Whether ``rest`` has a positional argument (a command, or a mistyped one
    for argparse to report) or a help option."""
    takes_value = _option_arity(parser)
    i = 0
    while i < len(rest):
        token = rest[i]
        if token in _HELP_OPTIONS or not token.startswith("-") or token == "-":
            return True
        if "=" not in token and _takes_value(token, takes_value):
            i += 1
        i += 1
    return False


def _named_command(parser: argparse.ArgumentParser, rest: Sequence[str]) -> str | None:
    """The command ``rest`` names (its first positional argument), when it is
    one and no top-level help is asked for before it."""
    takes_value = _option_arity(parser)
    i = 0
    while i < len(rest):
        token = rest[i]
        if token in _HELP_OPTIONS:
            return None
        if not token.startswith("-"):
            return token if token in COMMAND_NAMES else None
        if "=" not in token and _takes_value(token, takes_value):
            i += 1
        i += 1
    return None


def command_module(name: str) -> ModuleType:
    """The module of one command (``NAME`` in :data:`COMMAND_NAMES`)."""
    import importlib

    if name not in COMMAND_NAMES:
        raise KeyError(name)
    return importlib.import_module(f"{__package__}.{name}_cmd")


def build_parser(*, commands: bool = True, only: str | None = None) -> argparse.ArgumentParser:
    """The full parser; with ``commands=False`` only the global and window
    options; with ``only``, the global options and that one command."""
    parser = argparse.ArgumentParser(
        prog="mira-desktop",
        description="Mira Desktop: a local-first AI chat app. Without a command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"mira-desktop {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="data folder (default: platform data dir, or $MIRA_DATA_DIR)",
    )
    parser.add_argument("--verbose", action="store_true", help="more detail in the log file")
    _add_gui_options(parser)
    parser.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add Mira Desktop to this user's application menu (Linux, XDG) and exit",
    )
    parser.epilog = WINDOW_FILES_HELP
    if commands:
        subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
        for module in [command_module(only)] if only else command_modules():
            module.register(subparsers)
    return parser


def command_modules() -> list[ModuleType]:
    """Every sub-command module: each has ``NAME``, ``register(subparsers)`` and
    ``async run(services, args) -> int``. A new command is a new module listed here."""
    from . import (
        agent_cmd,
        chat_cmd,
        dev_cmd,
        doctor_cmd,
        export_cmd,
        import_cmd,
        kb_cmd,
        model_cmd,
        provider_cmd,
        role_cmd,
        search_cmd,
        thread_cmd,
        tokens_cmd,
        transcribe_cmd,
        workspace_cmd,
    )

    return [
        provider_cmd,
        chat_cmd,
        thread_cmd,
        search_cmd,
        workspace_cmd,
        doctor_cmd,
        role_cmd,
        export_cmd,
        import_cmd,
        kb_cmd,
        tokens_cmd,
        dev_cmd,
        agent_cmd,
        model_cmd,
        transcribe_cmd,
    ]


def _add_gui_options(parser: argparse.ArgumentParser) -> None:
    gui = parser.add_argument_group("window")
    gui.add_argument(
        "--screenshot", metavar="PATH", help="render the main window offscreen to a PNG and exit"
    )
    gui.add_argument(
        "--thread", dest="gui_thread", metavar="ID", help="open this thread (with --screenshot)"
    )
    gui.add_argument("--theme", choices=["light", "dark", "system"], help="theme for this run")
    gui.add_argument("--lang", choices=["en", "zh_CN", "system"], help="UI language for this run")


WINDOW_FILES_HELP = (
    "mira-desktop [OPTIONS] FILE... opens the window (or brings the open one forward) and "
    "hands it the files, as when files are dropped on the app icon. Put -- before a file "
    "whose name is also a command."
)


def split_window_files(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Split ``mira-desktop [OPTIONS] FILE...`` into ``(arguments to parse, files)``.

    argparse cannot put an optional positional beside sub-commands (``chat`` would be
    taken for a file), so the window's files are picked out before parsing: the first
    positional argument that is not a command name but an existing path, or anything
    after ``--``, starts the files, and every later positional argument is a file too.
    Anything else (a mistyped command, say) is left to argparse, which reports it."""
    commands: set[str] = set(COMMAND_NAMES)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands.update(action.choices)
    takes_value = _option_arity(parser)
    tokens = list(argv)
    rest: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            files.extend(tokens[i + 1 :])
            break
        if token.startswith("-") and token != "-":
            rest.append(token)
            if _takes_value(token, takes_value) and i + 1 < len(tokens):
                rest.append(tokens[i + 1])
                i += 1
        elif files or (token not in commands and os.path.exists(token)):
            files.append(token)
        else:
            rest.extend(tokens[i:])
            break
        i += 1
    return rest, files


def _option_arity(parser: argparse.ArgumentParser) -> dict[str, bool]:
    """Every option string of ``parser`` → whether it takes a value."""
    return {
        option: action.nargs != 0 for action in parser._actions for option in action.option_strings
    }


def _takes_value(token: str, options: dict[str, bool]) -> bool:
    if token in options:
        return options[token]
    # argparse accepts unique prefixes of long options ("--data" for "--data-dir")
    matches = [name for name in options if token.startswith("--") and name.startswith(token)]
    return len(matches) == 1 and options[matches[0]]
