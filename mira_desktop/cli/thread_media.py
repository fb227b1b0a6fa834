"""Media after an answer from the command line (PRODUCT.md §10):

* ``thread tts ID on|off`` / ``thread image ID on|off`` set the thread's
  switches: with TTS on, each completed answer (``chat`` too) is read aloud
  with the system voice; with images on (and a role, no knowledge base), each
  is illustrated by the image model (``provider image-model``).
* ``thread speak ID`` / ``thread illustrate ID`` make an answer's audio or
  picture now — the last answer of the active branch unless ``--message MESSAGE_ID``
  says which — and ``--out FILE`` writes it there too. Exit code 0 when it
  was made, 1 when it failed (the error says why; the answer is untouched,
  and audio or a picture it had is kept, its summary then carrying ``error``).

``--json`` prints one object: the thread's switch, or what was made
(``type`` "speech" or "image", ``message_id``, the ``SpeechInfo`` /
``ImageInfo`` fields, ``out``). ``chat`` reports media it waited for with the
same objects (:func:`report_made`), right before its terminal line; Ctrl+C
while it waits stops making them (:func:`stop_made`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bootstrap import Services
from ..core.errors import ConfigError, error_from_dict
from ..core.illustration import IMAGE_KEY
from ..core.models import Message, MessageRole
from ..core.speech import SPEECH_KEY
from .output import print_json

if TYPE_CHECKING:
    from ..services.answer_media import AnswerMediaMaker


@dataclass(frozen=True)
class _Kind:
    key: str  # the answer's data key, the JSON "type"
    service: str  # in Services
    switch: str  # the ``thread`` action setting it
    make: str  # the ``thread`` action making it now
    flag: str  # the Thread field


KINDS = (
    _Kind(SPEECH_KEY, "speech", "tts", "speak", "tts_enabled"),
    _Kind(IMAGE_KEY, "images", "image", "illustrate", "image_enabled"),
)
ACTIONS = frozenset(k.switch for k in KINDS) | frozenset(k.make for k in KINDS)


def register_actions(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    helps = {
        "tts": "read this thread's answers aloud (on) or not (off)",
        "image": "illustrate this thread's answers (on; needs a role) or not (off)",
        "speak": "read an answer aloud now and keep the audio",
        "illustrate": "draw a picture for an answer now and keep it",
    }
    for kind in KINDS:
        switch = sub.add_parser(kind.switch, help=helps[kind.switch])
        switch.add_argument("id")
        switch.add_argument("state", choices=["on", "off"])
        switch.add_argument("--json", action="store_true")
        make = sub.add_parser(kind.make, help=helps[kind.make])
        make.add_argument("id")
        make.add_argument("--message", metavar="MESSAGE_ID", help="this answer (default: the last)")
        make.add_argument("--out", metavar="FILE", help="also write the file here")
        make.add_argument("--json", action="store_true")


async def run_action(services: Services, args: argparse.Namespace) -> int:
    for kind in KINDS:
        if args.thread_command == kind.switch:
            return await _switch(services, args, kind)
        if args.thread_command == kind.make:
            return await _make(services, args, kind)
    raise ConfigError(f"Unknown action {args.thread_command}.")


async def _switch(services: Services, args: argparse.Namespace, kind: _Kind) -> int:
    on = args.state == "on"
    if kind.key == SPEECH_KEY:
        thread = await services.threads.set_tts(args.id, on)
    else:
        thread = await services.threads.set_image(args.id, on)
    enabled = bool(getattr(thread, kind.flag))
    if args.json:
        print_json({"thread_id": thread.id, kind.flag: enabled})
    else:
        what = "reads its answers aloud" if kind.key == SPEECH_KEY else "illustrates its answers"
        print(
            f"Thread {thread.id} {what}." if enabled else f"Thread {thread.id}: {kind.switch} off."
        )
        if kind.key == IMAGE_KEY and enabled and (not thread.role_id or thread.kb_id):
            print(
                "Answers are illustrated with a role and without a knowledge base.", file=sys.stderr
            )
    return 0


async def _make(services: Services, args: argparse.Namespace, kind: _Kind) -> int:
    message_id = args.message or await _last_answer(services, args.id)
    maker: AnswerMediaMaker = getattr(services, kind.service)
    message = await maker.make_now(message_id)
    if message.thread_id != args.id:
        raise ConfigError(f"Message {message_id} is not in thread {args.id}.")
    summary = _summary(message, kind.key)
    out = Path(args.out).expanduser() if args.out and summary.get("status") == "ready" else None
    if out is not None:
        await maker.copy_made(str(summary["sha256"]), int(summary["size"]), out)
    if args.json:
        print_json(made_json(kind.key, message_id, summary, out))
    else:
        print(made_line(kind.key, summary, out))
    return 0 if summary.get("status") == "ready" and not summary.get("error") else 1


async def _last_answer(services: Services, thread_id: str) -> str:
    branch = await services.store.active_branch(thread_id)
    answers = [m for m in branch if m.role is MessageRole.ASSISTANT and m.text.strip()]
    if not answers:
        raise ConfigError(
            "This thread has no answer yet.",
            hint="Ask something first: mira-desktop chat --thread ID TEXT",
        )
    return answers[-1].id


def _summary(message: Message, key: str) -> dict[str, Any]:
    value = (message.data or {}).get(key)
    return value if isinstance(value, dict) else {}


def made_json(
    key: str, message_id: str, summary: dict[str, Any], out: Path | None = None
) -> dict[str, Any]:
    data = {"type": key, "message_id": message_id, **summary}
    if out is not None:
        data["out"] = str(out)
    return data


def made_line(key: str, summary: dict[str, Any], out: Path | None = None) -> str:
    """One line for people: what was made and where, or why not."""
    if summary.get("status") != "ready" or summary.get("error"):
        error = error_from_dict(summary.get("error") or {})
        hint = f" {error.hint}" if error.hint else ""
        what = "Not read aloud" if key == SPEECH_KEY else "No image"
        if summary.get("status") == "ready":  # made before: that one is kept
            what = "Not read aloud again" if key == SPEECH_KEY else "Not drawn again"
            hint += " The earlier one is kept."
        return f"{what}: {error.message}{hint}"
    if key == SPEECH_KEY:
        seconds = round(int(summary.get("duration_ms") or 0) / 1000)
        text = f"Read aloud: {seconds // 60}:{seconds % 60:02d} ({summary.get('voice') or 'system voice'})"
        if summary.get("truncated"):
            text += f", the first {summary.get('chars')} characters"
    else:
        text = f"Image: {summary.get('width')}×{summary.get('height')} ({summary.get('model')})"
    return text + (f" → {out}" if out else "")


async def report_made(services: Services, message_id: str, *, as_json: bool) -> None:
    """``chat``: wait for the media its answer is getting (a thread that reads
    aloud or illustrates) and say how it went — a JSON object per kind, or a
    line on stderr."""
    for kind in KINDS:
        if kind.service not in services.built:
            continue  # nothing was started
        maker: AnswerMediaMaker = getattr(services, kind.service)
        message = await maker.finished(message_id)
        if message is None:
            continue
        summary = _summary(message, kind.key)
        if as_json:
            print_json(made_json(kind.key, message_id, summary))
        else:
            sys.stderr.write(f"[{made_line(kind.key, summary)}]\n")


async def stop_made(services: Services, message_id: str) -> list[str]:
    """``chat`` after Ctrl+C: stop making the media of its answer; the kinds
    (``speech``, ``image``) that were being made."""
    stopped = []
    for kind in KINDS:
        if kind.service not in services.built:
            continue
        maker: AnswerMediaMaker = getattr(services, kind.service)
        if await maker.cancel(message_id):
            stopped.append(kind.key)
    return stopped
