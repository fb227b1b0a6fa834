"""``mira-desktop chat``: send one message and stream the answer to the terminal.

Plain mode prints the answer on stdout as it streams and the thinking on stderr.
``--json`` prints one JSON object per event and ends with exactly one terminal
line (completed / stopped / failed) — also when the command refuses before
anything is sent (an unknown ``--role``, ``--kb`` or ``--workspace``, an
``--attach`` file that cannot be read, no text): a ``failed`` line with
``thread_id`` null and the error, as for an unknown ``--provider``. Exit codes: 0 completed, 1 failed, 130 when
Ctrl+C stopped the run (the answer so far is saved as stopped; a new thread
stopped before its answer began is not saved at all; pressed before the send —
an attached recording being written down — nothing is sent, and ``--json``
still ends with a ``stopped`` line, ``thread_id`` null) or the making of the
answer's audio or picture (``chat_interrupt.py``).

The conversation tree (issue 4): ``--thread ID --edit MESSAGE_ID TEXT`` sends
TEXT as a new version of that user message (the old branch is kept);
``--thread ID --regenerate MESSAGE_ID [--guidance TEXT | --preset NAME]``
answers again as a new version of that answer (a plain retry may move to the
next model tier; the run_started event then carries the note).

Context (issue 7): ``--attach PATH`` (repeatable) sends files and images with
the message — a file that cannot be read stops the command before anything is
sent; images for a model not marked vision-capable are announced first (a
``warning`` line in ``--json`` mode) and left out. ``--role NAME`` binds that
role to the thread (its prompt and parameters apply from this message on).
Automatic compaction shows as ``compacting`` / ``compacted`` events.

Knowledge bases (issue 8): ``--kb NAME`` binds that knowledge base to the new
(or ``--thread``) thread and answers through the knowledge-base path: numbered
sources go with the question, an empty base gets the fixed refusal without a
model call, files without a text question fall back to normal chat with a
note. The plain output lists ``Sources: [1] doc (page 3) …`` after the answer;
``--json`` prints a ``sources`` event line right before the terminal line
(its fields: ``chat_sources.py``). Any thread already bound answers this way.

Media after an answer (PRODUCT.md §10): ``--tts`` turns the thread's TTS switch
on (``--no-tts`` off), ``--image`` its image switch (``--no-image`` off; it
works with a role and no knowledge base). A completed answer of a thread with
a switch on is read aloud / illustrated before the command ends —
``[Read aloud: 0:12 …]`` / ``[Image: 1024×1024 …]`` on stderr, or a ``speech``
/ ``image`` line right before the terminal line with ``--json``
(``thread_media.py``).

Reasoning: ``--reasoning off|low|medium|high`` asks this answer (a send, an
edit or ``--regenerate``) with that level instead of the model's setting
(``model set PROVIDER MODEL --reasoning …``).

The agent (PRODUCT.md §11): ``--agent`` answers with the agent in the
workspace's folder, ``--approve ask|yes|no`` decides on its changes
(``chat_agent.py``)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import AsyncIterator

from ..bootstrap import Services
from ..core.agent import ToolCardChanged
from ..core.errors import ConfigError, MiraError
from ..core.events import (
    ChatEvent,
    Completed,
    Failed,
    Stopped,
)
from ..core.ids import new_id
from ..core.models import Reasoning, Usage
from ..loop_signals import add_handler
from ..services.attachments import PreparedAttachment
from ..services.chat import SendRequest
from ..services.regenerate import RegeneratePreset, RegenerateRequest
from .chat_agent import (
    add_agent_options,
    agent_mode,
    decide,
)
from .chat_interrupt import ChatInterrupt
from .chat_printers import JsonPrinter, PlainPrinter
from .thread_media import report_made

NAME = "chat"

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    chat = commands.add_parser("chat", help="send a message and stream the answer")
    chat.add_argument(
        "--provider", help="provider name (default: the thread's, then the last used)"
    )
    chat.add_argument("--model", help="model name (default: the thread's, then the last used)")
    chat.add_argument("--thread", metavar="ID", help="continue this thread (default: a new one)")
    chat.add_argument(
        "--workspace", metavar="NAME", help="the new thread's workspace (default: Mira BASE)"
    )
    chat.add_argument("--json", action="store_true", help="one JSON object per event, per line")
    chat.add_argument(
        "--attach",
        metavar="PATH",
        action="append",
        default=[],
        help="attach a file or image (repeatable)",
    )
    chat.add_argument("--role", metavar="NAME", help="use this role in the thread from now on")
    chat.add_argument(
        "--kb", metavar="NAME", help="answer from this knowledge base (binds it to the thread)"
    )
    chat.add_argument(
        "--reasoning",
        choices=[str(level) for level in Reasoning],
        help="how hard the model reasons for this answer (default: the model's setting)",
    )
    _add_media_options(chat)
    add_agent_options(chat)
    _add_tree_options(chat)
    chat.add_argument(
        "text", nargs="*", metavar="TEXT", help="the message; '-' reads standard input"
    )


def _add_media_options(chat: argparse.ArgumentParser) -> None:
    """--tts/--no-tts and --image/--no-image: the thread's switches (PRODUCT §10)."""
    for flag, what, extra in (
        ("tts", "read this thread's answers aloud", " (the answer's audio is kept)"),
        ("image", "illustrate this thread's answers", " (needs a role; provider image-model)"),
    ):
        group = chat.add_mutually_exclusive_group()
        group.add_argument(
            f"--{flag}", action="store_true", default=None, help=f"{what} from now on{extra}"
        )
        group.add_argument(f"--no-{flag}", dest=flag, action="store_false", help=f"stop: {what}")


def _add_tree_options(chat: argparse.ArgumentParser) -> None:
    version = chat.add_mutually_exclusive_group()
    version.add_argument(
        "--edit",
        metavar="MESSAGE_ID",
        help="send TEXT as a new version of this message of --thread (the old one is kept)",
    )
    version.add_argument(
        "--regenerate",
        metavar="MESSAGE_ID",
        help="answer again: a new version of this answer of --thread (no TEXT)",
    )
    chat.add_argument("--guidance", metavar="TEXT", help="with --regenerate: how to change it")
    chat.add_argument(
        "--preset",
        choices=[p.value for p in RegeneratePreset if p is not RegeneratePreset.CUSTOM],
        help="with --regenerate: retry (default), concise, detailed or creative",
    )


def _check_tree_options(args: argparse.Namespace) -> None:
    if (args.edit or args.regenerate) and not args.thread:
        raise ConfigError("--edit and --regenerate need the thread.", hint="Add --thread ID.")
    if (args.guidance or args.preset) and not args.regenerate:
        raise ConfigError("--guidance and --preset go with --regenerate MESSAGE_ID.")
    if args.regenerate and args.text:
        raise ConfigError(
            "--regenerate takes no message text.", hint="To change the answer, use --guidance."
        )
    if args.regenerate and args.attach:
        raise ConfigError("--attach goes with a message, not with --regenerate.")
    if not args.regenerate and not args.text and not args.attach:
        raise ConfigError("Type a message.", hint='For example: mira-desktop chat "Hello"')


async def _prepare(services: Services, args: argparse.Namespace) -> list[PreparedAttachment]:
    """Read and hold the --attach files (a refused one releases the others)."""
    prepared: list[PreparedAttachment] = []
    try:
        for path in args.attach:
            prepared.append(await services.attachments.prepare(path))
    except BaseException:
        await _discard(services, prepared)
        raise
    return prepared


async def _discard(services: Services, prepared: list[PreparedAttachment]) -> None:
    """Release what the message did not take (after a send these are no-ops)."""
    for item in prepared:
        await services.attachments.discard(item)


async def _role_id(services: Services, args: argparse.Namespace) -> str | None:
    if not args.role:
        return None
    role = await services.roles.get_by_name(args.role)
    if args.regenerate:  # a regeneration has no send request: bind it now
        await services.threads.set_role(args.thread, role.id)
    return role.id


async def _kb_id(services: Services, args: argparse.Namespace) -> str | None:
    if not args.kb:
        return None
    kb = await services.knowledge.resolve(args.kb)
    if args.regenerate:  # a regeneration has no send request: bind it now
        await services.knowledge.bind(args.thread, kb.id)
    return kb.id


async def _workspace_id(services: Services, args: argparse.Namespace) -> str | None:
    if not args.workspace:
        return None
    if args.thread:
        raise ConfigError("--workspace is for a new thread.", hint="Leave out --thread.")
    return (await services.workspaces.find(args.workspace)).id


def _events(
    services: Services, args: argparse.Namespace, request: SendRequest | None
) -> AsyncIterator[ChatEvent]:
    if request is not None:
        return services.chat.send(request)
    return services.chat.regenerate(
        RegenerateRequest(
            thread_id=args.thread,
            message_id=args.regenerate,
            preset=args.preset or RegeneratePreset.RETRY,
            guidance=args.guidance,
            provider=args.provider,
            model=args.model,
            reasoning=_reasoning(args),
        )
    )


def _reasoning(args: argparse.Namespace) -> Reasoning | None:
    return Reasoning(args.reasoning) if args.reasoning else None


def _send_request(
    args: argparse.Namespace,
    run_key: str,
    attachments: list[PreparedAttachment],
    role_id: str | None,
    kb_id: str | None = None,
    workspace_id: str | None = None,
) -> SendRequest | None:
    if args.regenerate:
        return None
    text = " ".join(args.text)
    if text == "-":
        text = sys.stdin.read()
    return SendRequest(
        text=text,
        provider=args.provider,
        model=args.model,
        thread_id=args.thread,
        new_thread_id=None if args.thread else run_key,
        edit_of=args.edit,
        attachments=tuple(attachments),
        role_id=role_id,
        kb_id=kb_id,
        workspace_id=workspace_id,
        tts=args.tts,
        image=args.image,
        agent=args.agent,
        agent_mode=agent_mode(args),
        plan=args.plan,
        reasoning=_reasoning(args),
    )


async def run(services: Services, args: argparse.Namespace) -> int:
    json_printer = JsonPrinter() if args.json else None
    task = asyncio.current_task()
    ctrl_c = ChatInterrupt(services, task)
    loop = asyncio.get_running_loop()
    installed = add_handler(loop, signal.SIGINT, ctrl_c.press)
    try:
        return await _run(services, args, json_printer, ctrl_c)
    except asyncio.CancelledError:
        if not ctrl_c.cancelled_early or task is None or task.cancelling() > 1:
            raise  # not (only) our Ctrl+C
        task.uncancel()
        # before the send: nothing was sent or saved; the run still ends as stopped
        printer = json_printer or PlainPrinter(asking=False, stdin=None)
        printer.show(Stopped(None, None, "", "", Usage(), None))
        return EXIT_INTERRUPTED
    except MiraError as exc:
        if json_printer is None or json_printer.ended:
            raise  # plain mode: ``error:`` and its hint on stderr (app.py)
        # refused before the stream began (or between its lines): the stream
        # still ends with its one terminal line, as for an unknown --provider
        json_printer.show(Failed(None, None, "", "", Usage(), exc.to_dict()))
        return EXIT_FAILED
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)


async def _run(
    services: Services,
    args: argparse.Namespace,
    json_printer: JsonPrinter | None,
    ctrl_c: ChatInterrupt,
) -> int:
    _check_tree_options(args)
    role_id = await _role_id(services, args)
    kb_id = await _kb_id(services, args)
    workspace_id = await _workspace_id(services, args)
    prepared = await _prepare(services, args)
    try:
        key = args.thread or new_id()
        request = _send_request(args, key, prepared, role_id, kb_id, workspace_id)
        return await _chat(services, args, request, json_printer, ctrl_c)
    finally:
        await _discard(services, prepared)


async def _chat(
    services: Services,
    args: argparse.Namespace,
    request: SendRequest | None,
    json_printer: JsonPrinter | None,
    ctrl_c: ChatInterrupt,
) -> int:
    run_key = args.thread or (request.new_thread_id if request else None) or new_id()
    typed = request.text if request is not None and args.text == ["-"] else None
    printer = json_printer or PlainPrinter(asking=args.approve == "ask", stdin=typed)
    final: ChatEvent | None = None
    unmade: list[str] = []
    ctrl_c.run_key = run_key  # from here a Ctrl+C stops the run
    if request is not None:
        for warning in await services.chat.preflight(request):
            printer.warn(warning)
    if ctrl_c.pressed:  # before anything was sent
        final = Stopped(None, None, "", "", Usage(), None)
        printer.show(final)
        return EXIT_INTERRUPTED
    async for event in _events(services, args, request):
        if isinstance(event, Completed) and event.message_id:
            made = report_made(services, event.message_id, as_json=args.json)
            unmade = await ctrl_c.wait_for_media(made, event.message_id)
        printer.show(event)
        if isinstance(event, ToolCardChanged):
            await decide(services, event, args.approve)
        final = event
    if isinstance(final, Completed):
        if unmade:
            printer.unmade(unmade)
            return EXIT_INTERRUPTED
        return EXIT_OK
    if isinstance(final, Stopped):
        return EXIT_INTERRUPTED if ctrl_c.pressed else EXIT_FAILED
    return EXIT_FAILED
