"""Spoken answers from the command line (PRODUCT.md §10):

* ``thread tts ID on|off`` sets the thread's TTS switch: with it on, each
  completed answer (``chat`` too) is read aloud with the system voice.
* ``thread speak ID [--message MESSAGE_ID] [--out FILE]`` reads an answer
  aloud now — the last answer of the active branch unless ``--message`` says
  which — and with ``--out`` writes the WAV there. Exit code 0 when it was
  read, 1 when the voice failed (the error says why; the answer is untouched).
``--json`` prints one object: the thread's switch, or the answer's speech
(``SpeechInfo`` fields plus ``message_id`` and ``out``).

``thread_cmd`` registers these next to its own actions and hands them over."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..bootstrap import Services
from ..core.errors import ConfigError, error_from_dict
from ..core.models import MessageRole
from ..core.speech import SpeechInfo
from ..services.speech_text import MAX_SPOKEN_CHARS
from .output import print_json

ACTIONS = frozenset({"tts", "speak"})


def register_actions(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    tts = sub.add_parser("tts", help="read this thread's answers aloud (on) or not (off)")
    tts.add_argument("id")
    tts.add_argument("state", choices=["on", "off"])
    tts.add_argument("--json", action="store_true")
    speak = sub.add_parser("speak", help="read an answer aloud now and keep the audio")
    speak.add_argument("id")
    speak.add_argument("--message", metavar="MESSAGE_ID", help="this answer (default: the last)")
    speak.add_argument("--out", metavar="FILE", help="also write the WAV file here")
    speak.add_argument("--json", action="store_true")


async def run_action(services: Services, args: argparse.Namespace) -> int:
    if args.thread_command == "tts":
        thread = await services.threads.set_tts(args.id, args.state == "on")
        if args.json:
            print_json({"thread_id": thread.id, "tts_enabled": thread.tts_enabled})
        else:
            state = (
                "reads its answers aloud" if thread.tts_enabled else "no longer reads answers aloud"
            )
            print(f"Thread {thread.id} {state}.")
        return 0
    return await _speak(services, args)


async def _speak(services: Services, args: argparse.Namespace) -> int:
    message_id = args.message or await _last_answer(services, args.id)
    message = await services.speech.speak(message_id)
    if message.thread_id != args.id:
        raise ConfigError(f"Message {message_id} is not in thread {args.id}.")
    info = SpeechInfo.from_data(message.data)
    assert info is not None  # speak() always records an outcome
    out = Path(args.out).expanduser() if args.out and info.status == "ready" else None
    if out is not None:
        await services.speech.copy_audio(info, out)
    if args.json:
        print_json(speech_json(message_id, info, out))
    else:
        print(speech_line(info, out))
    return 0 if info.status == "ready" else 1


async def _last_answer(services: Services, thread_id: str) -> str:
    branch = await services.store.active_branch(thread_id)
    answers = [m for m in branch if m.role is MessageRole.ASSISTANT and m.text.strip()]
    if not answers:
        raise ConfigError(
            "This thread has no answer to read aloud yet.",
            hint="Ask something first: mira-desktop chat --thread ID TEXT",
        )
    return answers[-1].id


def speech_json(message_id: str, info: SpeechInfo, out: Path | None = None) -> dict[str, Any]:
    data = {"type": "speech", "message_id": message_id, **info.to_dict()}
    if out is not None:
        data["out"] = str(out)
    return data


def speech_line(info: SpeechInfo, out: Path | None = None) -> str:
    """One line for people: how long, where, or why not."""
    if info.status != "ready":
        error = error_from_dict(info.error or {})
        hint = f" {error.hint}" if error.hint else ""
        return f"Not read aloud: {error.message}{hint}"
    seconds = round(info.duration_ms / 1000)
    text = f"Read aloud: {seconds // 60}:{seconds % 60:02d} ({info.voice or 'system voice'})"
    if info.truncated:
        text += f", the first {info.chars} characters (at most {MAX_SPOKEN_CHARS})"
    return text + (f" → {out}" if out else "")


def print_speech(info: SpeechInfo | None, message_id: str, *, as_json: bool) -> None:
    """``chat``'s report of an answer read aloud (before its terminal line)."""
    if info is None:
        return
    if as_json:
        print_json(speech_json(message_id, info))
    else:
        sys.stderr.write(f"[{speech_line(info)}]\n")
