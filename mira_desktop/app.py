"""The composition root and entry point of ``mira-desktop``.

With a sub-command it runs the headless CLI on the same services and database as
the window; without one it opens the window (``ui/launch.py``) on a qasync loop.
Nothing else builds services: both front ends get them from ``bootstrap``."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import dataclass_cache, startup_gc
from .cli.output import print_error, use_utf8_streams
from .cli.parser import parse_arguments
from .core.errors import MiraError, StorageError
from .paths import ChosenFolderMissing, UnusableDataDir, resolve_data_dir

if TYPE_CHECKING:
    from pathlib import Path

    from .bootstrap import Services

log = logging.getLogger(__name__)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mira-desktop``. ``argv`` None means this is the program's own entry
    (the console scripts, ``python -m mira_desktop``), which owns the process:
    a ``--screenshot`` launch then ends it at once after its clean shut-down
    (``ui/launch.py``, ``end_process``); callers passing ``argv`` get the exit
    code back."""
    dataclass_cache.install()  # before the modules defining dataclasses are imported
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    if args.command is None and argv is None:  # this process is a window's launch
        startup_gc.pause()  # until the first frames (``ui/launch.py``)
    if args.command is not None:
        use_utf8_streams()
    if args.install_desktop_entry:
        from .desktop_entry import install_desktop_entry

        return install_desktop_entry()
    try:
        data_dir = _data_dir(args)
    except OSError as exc:  # a file where the folder should be, no permission…
        print_error(_data_dir_error(exc))
        return 1
    if data_dir is None:  # the window's launch: quit, asked about a missing folder
        return 1
    from .bootstrap import configure_logging

    configure_logging(data_dir, verbose=args.verbose)
    if args.command is None:
        from .ui import pyside_imports

        pyside_imports.install()  # before the window's modules: PySide6 checks each one
        from .ui.launch import end_process, run_window

        code = run_window(args, data_dir)
        if args.screenshot and argv is None:
            end_process(code)
        return code
    import asyncio  # here: a window launch imports it with the collector paused

    try:
        code = asyncio.run(_run_cli(args, data_dir))
        # what is still buffered is written here, where a reader that left is
        # caught, not at exit ("Exception ignored … BrokenPipeError", exit 120)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `mira-desktop search … | head`: the reader left
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error on exit
        return 141


def _data_dir(args: argparse.Namespace) -> Path | None:
    """The data folder of this run. A window launch whose chosen folder is
    not there asks what to do (None: quit); a command line, or a
    screenshot, says why and ends (``ChosenFolderMissing``)."""
    default = False
    while True:
        try:
            return resolve_data_dir(args.data_dir, default=default)
        except ChosenFolderMissing as missing:
            if args.command is not None or args.screenshot:
                raise
            from .ui import pyside_imports

            pyside_imports.install()
            from .ui.missing_folder import ask_missing_folder

            answer = ask_missing_folder(missing.path)
            if answer == "quit":
                return None
            default = answer == "default"


def _data_dir_error(exc: OSError) -> MiraError:
    if isinstance(exc, UnusableDataDir):  # the message says it all
        return MiraError(
            str(exc),
            hint="Connect its drive, or choose a folder with --data-dir DIR (or MIRA_DATA_DIR).",
        )
    where = f" {exc.filename}" if exc.filename else ""
    return MiraError(
        f"Cannot use the data folder{where}: {exc.strerror or exc}.",
        hint="Choose a folder you can write to with --data-dir DIR (or MIRA_DATA_DIR).",
    )


async def _run_cli(args: argparse.Namespace, data_dir) -> int:  # type: ignore[no-untyped-def]
    from .bootstrap import build_services

    try:
        services = build_services(data_dir)
    except MiraError as exc:
        if args.command == "doctor" and isinstance(exc, StorageError) and exc.damaged:
            from .cli.doctor_cmd import run_on_damaged

            return await run_on_damaged(data_dir, args, exc)
        print_error(exc)
        return 1
    try:
        if args.command != "doctor":  # doctor reports these itself; --dry-run changes nothing
            await services.recover()
            await services.startup_maintenance()
        return await _dispatch(services, args)
    except MiraError as exc:
        print_error(exc)
        return 1
    finally:
        await services.aclose()


async def _dispatch(services: Services, args: argparse.Namespace) -> int:
    from .cli.parser import command_module

    return int(await command_module(args.command).run(services, args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
