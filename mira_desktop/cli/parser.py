"""The argument parser of ``mira-desktop``: global options, the GUI options, and
one sub-command per area. Sub-commands and flags named in the issues are a public
contract (scripts use them); add, never rename."""

from __future__ import annotations

import argparse
from types import ModuleType

from .. import __version__


def build_parser() -> argparse.ArgumentParser:
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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in command_modules():
        module.register(commands)
    return parser


def command_modules() -> list[ModuleType]:
    """Every sub-command module: each has ``NAME``, ``register(subparsers)`` and
    ``async run(services, args) -> int``. A new command is a new module listed here."""
    from . import chat_cmd, provider_cmd, thread_cmd

    return [provider_cmd, chat_cmd, thread_cmd]


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
