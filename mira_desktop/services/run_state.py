"""What one answer has accumulated while it streams (``RunState``): text,
reasoning and its duration, the usage the provider reported, and whether the
answer row exists and the stream ended. Split out of ``chat_run.py``; no I/O."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..core.events import ChatEvent, StreamDone, TextDelta, ThinkingDelta, UsageReported
from ..core.unopened_think import split_unopened_think


@dataclass
class RunState:
    text: str = ""
    thinking: str = ""
    thinking_started: float | None = None
    thinking_ms: int | None = None
    reported: UsageReported = field(default_factory=UsageReported)
    persisted: bool = False
    done: bool = False
    #: the server's end reason when it cut the answer at its length limit
    cut_off: str | None = None

    def apply(self, event: ChatEvent) -> None:
        """Account for one stream event (other events are ignored)."""
        if isinstance(event, ThinkingDelta):
            if self.thinking_started is None:
                self.thinking_started = time.monotonic()
            self.thinking += event.text
        elif isinstance(event, TextDelta):
            if event.text:
                self.end_thinking()
            self.text += event.text
        elif isinstance(event, UsageReported):
            self.reported = event
        elif isinstance(event, StreamDone):
            self.done = True
            self.cut_off = event.finish_reason if event.cut_at_length else None

    def sort_unopened_think(self) -> None:
        """Text before a lone ``</think>`` was reasoning (``core.unopened_think``):
        it moves to the thinking, the answer keeps what follows the tag."""
        split = split_unopened_think(self.text)
        if split is None:
            return
        reasoning, self.text = split
        self.thinking = f"{self.thinking}\n\n{reasoning}" if self.thinking else reasoning

    def end_thinking(self) -> None:
        """Reasoning is over (the answer began, or it was stopped): its duration."""
        if self.thinking_started is not None and self.thinking_ms is None:
            self.thinking_ms = int((time.monotonic() - self.thinking_started) * 1000)
