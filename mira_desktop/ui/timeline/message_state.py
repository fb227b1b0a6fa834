"""Per-message view state of the timeline.

Owns :class:`MessageState`: what the timeline knows about one message beyond the
frozen :class:`~mira_desktop.core.models.Message` — the text and reasoning
streamed so far, when thinking started and when the answer began (for the
"Thinking Ns" card and its collapse one second later), the user's own
open/closed choice for the card, the cached markdown rendering and the row
height (estimated until a widget measured it). Widgets are created and destroyed
as the view scrolls; this state outlives them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mira_desktop.core.models import Message, MessageRole, MessageStatus

from .live_cadence import StepSizer

if TYPE_CHECKING:  # markdown loads with the first rendering
    from .markdown import RenderedMarkdown
    from .thumbnails import Thumbnails

log = logging.getLogger(__name__)

THINKING_EXPANDED = "expanded"
THINKING_COLLAPSED = "collapsed"
THINKING_HIDDEN = "hidden"
THINKING_MODES = (THINKING_EXPANDED, THINKING_COLLAPSED, THINKING_HIDDEN)
#: The thinking card closes this long after the first answer text (PRODUCT §6).
COLLAPSE_DELAY_S = 1.0


@dataclass(slots=True, eq=False)
class MessageState:
    message: Message
    text: str
    thinking: str
    height: int = 0
    measured_width: int = 0
    thinking_started: float | None = None
    answer_started: float | None = None
    thinking_ended: float | None = None
    thinking_open: bool | None = None
    stop_thinking_sent: bool = False
    highlighted: bool = False
    #: the user is editing this message inline (Edit → branch); ``edit_text`` is
    #: the draft, kept here so it survives the widget scrolling away
    editing: bool = False
    edit_text: str = ""
    #: a system card (a "Context compressed" card) shows its body
    card_open: bool = False
    _rendered: tuple[str, bool, RenderedMarkdown] | None = field(default=None, repr=False)

    @classmethod
    def from_message(cls, message: Message) -> MessageState:
        # positional: half the cost of keywords (5,000 of them when a long thread opens)
        return cls(message, message.text, message.thinking)

    # -- derived ------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.message.id

    @property
    def is_user(self) -> bool:
        return self.message.role == MessageRole.USER

    @property
    def note(self) -> str:
        """A line the run left on the answer ("Retry escalated to …")."""
        data = self.message.data or {}
        note = data.get("note")
        return note if isinstance(note, str) else ""

    @property
    def is_streaming(self) -> bool:
        return self.message.status == MessageStatus.STREAMING

    @property
    def thinking_live(self) -> bool:
        """Reasoning is streaming and no answer text has arrived yet."""
        return self.is_streaming and bool(self.thinking) and not self.text

    def thinking_seconds(self, now: float) -> int | None:
        """Whole seconds spent thinking, ``None`` when unknown (old messages)."""
        if self.message.thinking_ms is not None and not self.thinking_live:
            return round(self.message.thinking_ms / 1000)
        if self.thinking_started is None:
            return None
        end = next((t for t in (self.answer_started, self.thinking_ended) if t is not None), now)
        return max(0, int(end - self.thinking_started))

    def thinking_expanded(self, mode: str, now: float) -> bool:
        """Whether the card shows its body: the user's choice wins; otherwise open
        while reasoning streams in ``expanded`` mode, until one second after the
        answer began; collapsed after that and after a reload."""
        if mode == THINKING_HIDDEN:
            return False
        if self.thinking_open is not None:
            return self.thinking_open
        if mode == THINKING_COLLAPSED or self.thinking_started is None:
            return False
        if self.thinking_live:
            return True
        return self.answer_started is not None and now - self.answer_started < COLLAPSE_DELAY_S

    def rendered(self, dark: bool) -> RenderedMarkdown:
        """The markdown rendering of the current text, cached."""
        cached = self._rendered
        if cached is not None and cached[1] == dark and cached[0] == self.text:
            return cached[2]
        from .markdown import render_markdown_blocks

        rendered = render_markdown_blocks(self.text, dark=dark)
        self._rendered = (self.text, dark, rendered)
        return rendered

    def drop_render_cache(self) -> None:
        self._rendered = None

    # -- updates ------------------------------------------------------------------

    def add_thinking(self, delta: str, now: float) -> None:
        if not delta:
            return
        if self.thinking_started is None:
            self.thinking_started = now
        self.thinking += delta

    def add_text(self, delta: str, now: float) -> bool:
        """Append answer text; True when this was the first answer text after
        reasoning (the moment the collapse countdown starts)."""
        if not delta:
            return False
        first = not self.text and bool(self.thinking) and self.answer_started is None
        if first:
            self.answer_started = now
        self.text += delta
        return first

    def replace(self, message: Message, now: float) -> None:
        """Take a newer version of the message (status, usage, error, final text).
        Text streamed ahead of a still-streaming row is kept."""
        streaming = message.status == MessageStatus.STREAMING
        self.text = _merge(message.text, self.text, streaming)
        self.thinking = _merge(message.thinking, self.thinking, streaming)
        self.message = message
        if streaming and self.thinking and self.thinking_started is None:
            self.thinking_started = now
        if streaming and self.text and self.thinking and self.answer_started is None:
            self.answer_started = now
        if not streaming and self.thinking_started is not None and self.thinking_ended is None:
            self.thinking_ended = now


def _merge(incoming: str, streamed: str, streaming: bool) -> str:
    """The text to show when a new version of a message arrives: the incoming
    text, unless it is empty or (while streaming) behind what was streamed."""
    if not incoming:
        return streamed
    if streaming and len(streamed) > len(incoming) and streamed.startswith(incoming):
        return streamed
    return incoming


def estimate_height(state: MessageState, width: int, line_height: int, char_width: float) -> int:
    """Cheap guess of a row's height before any widget measured it: it only
    counts characters and lines (see :func:`estimate_heights`)."""
    estimate_heights((state,), width, line_height, char_width)
    return state.height


def estimate_heights(
    states: Iterable[MessageState], width: int, line_height: int, char_width: float
) -> None:
    """Set every state's ``height`` to its estimate. Called for every row when
    a thread opens (5,000 rows: a tight loop, names bound once, no property
    calls: this was a third of opening a long thread)."""
    user, card = MessageRole.USER, MessageRole.SYSTEM_CARD
    ended = (MessageStatus.FAILED, MessageStatus.STOPPED)
    usable_user = max(width * 0.78 - 24, 80)
    usable_other = max(width * 1.0 - 24, 80)
    closed_card = 2 * line_height + 36  # a closed card: its header only
    for state in states:
        message = state.message
        role = message.role
        if role == card and not state.card_open:
            state.height = closed_card
            continue
        text = state.text
        if role == user:
            usable, chrome = usable_user, 44
        else:
            usable, chrome = usable_other, 60
        lines = text.count("\n") + 1 + int(len(text) * char_width / usable)
        if state.thinking:
            chrome += line_height + 12
        if message.status in ended:
            chrome += 2 * line_height
        data = message.data
        if data:
            note = data.get("note")
            if note and isinstance(note, str):
                chrome += line_height
            files = data.get("attachments")
            if files and any(isinstance(f, dict) and f.get("kind") == "image" for f in files):
                chrome += 78  # the attached pictures' squares (user_bubble.THUMB_SIDE + gaps)
            agent = data.get("agent")
            if agent is not None:  # the agent's tool cards, closed (PRODUCT §11)
                chrome += len(agent.get("tools") or ()) * (line_height + 14)
                if agent.get("plan"):  # a proposed plan: its title and buttons
                    chrome += 2 * line_height + 24
            if "speech" in data:  # its bar (PRODUCT §10)
                chrome += line_height + 12
            image = data.get("image")
            if image is not None:  # its card: the picture's box and a line
                chrome += _image_height(image) + line_height + 12
        state.height = int(chrome + lines * line_height)


#: the widest an answer's picture is shown
PICTURE_WIDTH = 360


def shown_size(width: int, height: int, limit: int = PICTURE_WIDTH) -> tuple[int, int]:
    """The size a picture of ``width`` × ``height`` takes in the timeline."""
    if width <= 0 or height <= 0:
        return limit, limit * 3 // 4
    scale = min(1.0, limit / width)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _image_height(image: object) -> int:
    if not isinstance(image, dict) or image.get("status") != "ready":
        return 0
    return shown_size(int(image.get("width") or 0), int(image.get("height") or 0))[1]


ClockFn = Callable[[], float]


@dataclass(slots=True)
class ViewOptions:
    """Settings shared by every message widget of one timeline."""

    clock: ClockFn
    dark: bool = False
    thinking_mode: str = THINKING_EXPANDED
    #: Edit, Regenerate and the version switcher work: the thread is saved,
    #: writable and not answering (the window decides)
    actions_enabled: bool = False
    #: the live markdown step sizes learnt from this timeline's answers
    step_sizer: StepSizer = field(default_factory=StepSizer)
    #: answers' pictures, scaled off the Qt thread (the window sets it)
    thumbnails: Thumbnails | None = None
    #: the proposed plan whose "Implement plan" / "Keep planning" still mean
    #: something: the newest answer of the branch shown, when it is a plan
    open_plan_id: str | None = None
    #: answers typed to the agent's questions and not sent yet, by (message id,
    #: call id): the forms are disposable widgets (a row scrolled away, a
    #: language or font change, another thread shown), the words are not
    answer_drafts: dict[tuple[str, str], list[str]] = field(default_factory=dict)
