"""The argument parser of ``mira-desktop``: global options, the GUI options, and
one sub-command per area. Sub-commands and flags named in the issues are a public
contract (scripts use them); add, never rename."""

from __future__ import annotations

import argparse

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
    _add_provider(commands)
    _add_chat(commands)
    _add_thread(commands)
    return parser


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


def _add_provider(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    provider = commands.add_parser("provider", help="configure model servers")
    sub = provider.add_subparsers(dest="provider_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add a provider")
    add.add_argument("name")
    add.add_argument("--kind", required=True, choices=["openai", "ollama", "anthropic"])
    add.add_argument(
        "--base-url", required=True, help="openai: include /v1; ollama/anthropic: the server root"
    )
    add.add_argument(
        "--api-key-env", metavar="VAR", help="read the API key once from this environment variable"
    )
    lst = sub.add_parser("list", help="list providers")
    lst.add_argument("--json", action="store_true")
    models = sub.add_parser("models", help="list a provider's models (asks the server)")
    models.add_argument("name")
    models.add_argument("--json", action="store_true")
    remove = sub.add_parser("remove", help="remove a provider (threads keep their history)")
    remove.add_argument("name")


def _add_chat(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    chat = commands.add_parser("chat", help="send a message and stream the answer")
    chat.add_argument(
        "--provider", help="provider name (default: the thread's, then the last used)"
    )
    chat.add_argument("--model", help="model name (default: the thread's, then the last used)")
    chat.add_argument("--thread", metavar="ID", help="continue this thread (default: a new one)")
    chat.add_argument("--json", action="store_true", help="one JSON object per event, per line")
    chat.add_argument(
        "text", nargs="+", metavar="TEXT", help="the message; '-' reads standard input"
    )


def _add_thread(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    thread = commands.add_parser("thread", help="list and show threads")
    sub = thread.add_subparsers(dest="thread_command", metavar="ACTION", required=True)
    lst = sub.add_parser("list", help="list threads, newest first")
    lst.add_argument("--json", action="store_true")
    lst.add_argument("--limit", type=int, default=100)
    show = sub.add_parser("show", help="show a thread's active branch")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
