"""What ``mira-desktop chat`` (``chat_cmd.py``) prints: one JSON object per
event (``--json``), or the answer on stdout as it streams with the thinking,
tool cards and notes on stderr. When nothing was saved the plain printer says
where the message is (a message read from standard input is printed back)."""

from __future__ import annotations

import sys

from ..core.agent import ProgressChanged, ToolCardChanged, ToolStatus
from ..core.context import SendWarning
from ..core.events import (
    ChatEvent,
    Compacted,
    Compacting,
    Completed,
    Failed,
    RunStarted,
    Stopped,
    TextDelta,
    ThinkingDelta,
)
from .chat_agent import card_line, plan_note, progress_line
from .chat_sources import kb_notices, sources_event, sources_lines
from .output import print_error, print_json


class JsonPrinter:
    def __init__(self) -> None:
        #: the terminal line was printed (nothing may follow it)
        self.ended = False

    def show(self, event: ChatEvent) -> None:
        if isinstance(event, Completed | Stopped | Failed):
            sources = sources_event(event)
            if sources is not None:
                print_json(sources)
            self.ended = True
        print_json(event.to_dict())

    def warn(self, warning: SendWarning) -> None:
        print_json(warning.to_dict())

    def unmade(self, kinds: list[str]) -> None:
        _say_unmade(kinds)


class PlainPrinter:
    """Answer text on stdout as it arrives; thinking dimmed on stderr."""

    def __init__(self, *, asking: bool = False, stdin: str | None = None) -> None:
        """``asking``: approvals and questions are asked on the terminal,
        which says what waits (no separate "waiting" line); ``stdin``: the
        message, when it was read from standard input (printed back when it
        was not saved: it is nowhere else on the screen)."""
        self._thinking = False
        self._tty = sys.stderr.isatty()
        self._asking = asking
        self._stdin = stdin

    def unmade(self, kinds: list[str]) -> None:
        _say_unmade(kinds)

    def warn(self, warning: SendWarning) -> None:
        sys.stderr.write(f"warning: {warning.message}\n")
        sys.stderr.flush()

    def show(self, event: ChatEvent) -> None:
        if isinstance(event, Compacting):
            sys.stderr.write("[compressing the context…]\n")
        elif isinstance(event, Compacted):
            sys.stderr.write("[Context compressed]\n")
        elif isinstance(event, RunStarted):
            sys.stderr.write(f"[{event.provider} · {event.model}]\n")
            if event.note:
                sys.stderr.write(f"[{event.note}]\n")
        elif isinstance(event, ThinkingDelta):
            self._write_thinking(event.text)
        elif isinstance(event, TextDelta):
            self._end_thinking()
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, ToolCardChanged | ProgressChanged):
            self._end_thinking()
            line = (
                card_line(event.card)
                if isinstance(event, ToolCardChanged)
                else progress_line(event)
            )
            if self._asking and isinstance(event, ToolCardChanged):
                line = None if event.card.status is ToolStatus.WAITING else line
            if line:
                sys.stdout.flush()
                sys.stderr.write(f"\n{line}\n")
                sys.stderr.flush()
        elif isinstance(event, Completed | Stopped | Failed):
            self._end_thinking()
            self._finish(event)

    def _unsaved_message(self) -> None:
        """Where the message is, now that nothing holds it."""
        if self._stdin is None:
            sys.stderr.write("Nothing was saved; your message is on the command line above.\n")
            return
        sys.stderr.write("Nothing was saved. Your message (read from standard input) was:\n")
        sys.stderr.write(self._stdin if self._stdin.endswith("\n") else self._stdin + "\n")

    def _write_thinking(self, text: str) -> None:
        if not self._thinking:
            self._thinking = True
            sys.stderr.write("Thinking…\n")
        sys.stderr.write(f"\x1b[2m{text}\x1b[0m" if self._tty else text)
        sys.stderr.flush()

    def _end_thinking(self) -> None:
        if self._thinking:
            self._thinking = False
            sys.stderr.write("\n---\n")
            sys.stderr.flush()

    def _finish(self, event: Completed | Stopped | Failed) -> None:
        if event.text and not event.text.endswith("\n"):
            sys.stdout.write("\n")
        lines = sources_lines(event)
        if lines:
            sys.stdout.write("\n" + "\n".join(lines) + "\n")
        sys.stdout.flush()
        for note in kb_notices(event):
            sys.stderr.write(f"[{note}]\n")
        if event.to_dict()["cut_off"]:
            sys.stderr.write("[The model stopped at its length limit: the answer is cut off.]\n")
        planned = plan_note(event.message)
        if planned:
            sys.stderr.write(planned + "\n")
        u = event.usage
        approx = "≈" if u.counts_estimated else ""
        usage = f"tokens: {approx}{u.prompt_tokens} in, {approx}{u.completion_tokens} out"
        if u.reasoning_tokens:
            usage += f", {'≈' if u.reasoning_estimated else ''}{u.reasoning_tokens} reasoning"
        if isinstance(event, Stopped) and event.thread_id is None:
            sys.stderr.write("[stopped; nothing was saved and your message was not sent]\n")
            self._unsaved_message()
        elif isinstance(event, Stopped):
            kept = "the answer so far is saved" if event.text else "your message is saved"
            sys.stderr.write(f"[stopped; {kept}] {usage}\n")
        elif isinstance(event, Failed):
            print_error(event.error or "failed")
            if event.thread_id is None:
                self._unsaved_message()
        else:
            sys.stderr.write(f"[{usage}]\n")
        if event.thread_id:
            sys.stderr.write(f"thread: {event.thread_id}\n")
        sys.stderr.flush()


def _say_unmade(kinds: list[str]) -> None:
    what = " and ".join("audio" if kind == "speech" else "picture" for kind in kinds)
    sys.stderr.write(f"[stopped: the {what} was not made; the answer is saved]\n")
    sys.stderr.flush()
