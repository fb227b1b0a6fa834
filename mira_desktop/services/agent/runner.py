"""``AgentLoop``: one answer of the agent (PRODUCT.md §11). It stands where a
provider stands for ``ChatRun`` (it has ``stream_chat``): it asks the model
with the tools offered, runs the calls the model makes — asking the user
first for a change in manual mode — gives it the results and asks again,
until the model answers without calling a tool.

What it streams: the model's words and reasoning from every round (rounds
separated by a blank line), a :class:`~mira_desktop.core.agent.ToolCardChanged`
each time a call appears or changes, a ``ProgressChanged`` for each
``update_progress``, the usage of all rounds (and of its sub-agents) added
up, then one ``StreamDone``. Questions and approvals wait on ``approvals``;
a sub-agent is another ``AgentLoop`` (``sub=True``) whose words become the
call's result. File changes are handed to ``on_changes`` as soon as a
tool made them (the run's journal, for rollbacks), before the model hears
of them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

from ...core.agent import (
    CARD_OUTPUT_LIMIT,
    AgentMode,
    ApprovalState,
    FileChange,
    ProgressChanged,
    SourcesFound,
    ToolCard,
    ToolCardChanged,
    ToolOutcome,
    ToolRefused,
    ToolStatus,
    cut_diff,
)
from ...core.errors import MalformedStreamError, MiraError, worded
from ...core.events import (
    StreamDone,
    TextDelta,
    ThinkingSigned,
    ToolCallCollector,
    ToolCallDelta,
    UsageReported,
)
from ...core.models import ChatMessage, ChatRequest, ModelInfo, SignedThinking, ToolCall
from ...core.ports import ChatProvider
from . import progress, questions, subagents
from .approvals import Approvals
from .prompt import agent_instructions
from .room import DEFAULT_BUDGET, make_room
from .toolbox import Toolbox

log = logging.getLogger(__name__)

#: rounds of tool calls in one answer before the agent stops and says so
MAX_ROUNDS = 40
DENIED_RESULT = "The user denied this call. Do not retry it; ask what they want instead."
TOO_MANY_ROUNDS_HINT = "Send “continue” to let it go on, or say what to do differently."

ChangesHook = Callable[[ToolCard, tuple[FileChange, ...]], Awaitable[None]]


class AgentLoop:
    def __init__(
        self,
        provider: ChatProvider,
        toolbox: Toolbox,
        *,
        thread_id: str,
        message_id: str,
        mode: AgentMode = AgentMode.MANUAL,
        on_changes: ChangesHook | None = None,
        max_rounds: int = MAX_ROUNDS,
        memory: str = "",
        question: str | None = None,
        planning: bool = False,
        sub: bool = False,
        room: int = DEFAULT_BUDGET,
    ) -> None:
        """``memory``: the workspace's ``.agent/memory.md``; ``question``: what
        the model gets instead of the user's last message (a skill expanded);
        ``planning``: plan mode (the toolbox is read-only; the answer is a
        proposed plan); ``sub``: a sub-agent (read-only, no questions, no
        progress, no sub-agents of its own); ``room``: characters of tool
        results sent whole (``room.py``)."""
        self.name = provider.name
        self.thread_id = thread_id
        self.message_id = message_id
        self.mode = mode
        self.approvals = Approvals()
        self._provider = provider
        self._toolbox = toolbox
        self._on_changes = on_changes
        #: cards of calls stopped with the answer after changing files (by call id)
        self.stopped_cards: dict[str, ToolCard] = {}
        self._max_rounds = max_rounds
        self._memory = memory
        self.planning = planning
        self._sub = sub
        self._room = room
        self._base: ChatRequest | None = None  # the request a sub-agent's is made from
        self._usage = _UsageSum()
        self._question = question
        self._text = 0  # characters of answer text so far (where cards sit)
        self._ids: set[str] = set()  # the call ids of this answer
        self._asking: set[str] = set()  # calls of ask_user_question
        self._searches = 0  # knowledge-base searches reported (``SourcesFound``)

    async def list_models(self) -> list[ModelInfo]:
        return await self._provider.list_models()

    async def aclose(self) -> None:
        """The provider belongs to the provider service; nothing to close."""

    def decide(self, call_id: str, approved: bool) -> bool:
        """Approve or deny a call waiting in manual mode."""
        if call_id in self._asking:
            return False
        return self.approvals.decide(call_id, bool(approved))

    def answer(self, call_id: str, answers: list[str] | None) -> bool:
        """Answer (or, with None, dismiss) the questions of a call."""
        if call_id not in self._asking:
            return False
        return self.approvals.decide(call_id, None if answers is None else list(answers))

    def prepare(self, request: ChatRequest) -> ChatRequest:
        """``request`` with the tools and the agent's instructions."""
        knowledge = self._toolbox.knowledge
        note = agent_instructions(
            self._toolbox.root,
            self.mode,
            self._memory,
            self.planning,
            knowledge=knowledge.kb_name if knowledge is not None else None,
        )
        if self._sub:
            note = f"{note}\n\n{subagents.INSTRUCTIONS}"
        messages = list(request.messages)
        if self._question is not None:
            last = max(i for i, m in enumerate(messages) if m.role == "user")
            messages[last] = replace(messages[last], content=self._question)
        if messages and messages[0].role == "system":
            messages[0] = replace(messages[0], content=f"{note}\n\n{messages[0].content}")
        else:
            messages.insert(0, ChatMessage("system", note))
        own = () if self._sub else (progress.SPEC, questions.SPEC, subagents.SPEC)
        return replace(request, messages=tuple(messages), tools=(*self._toolbox.specs, *own))

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[Any]:
        self._base = request
        request = self.prepare(request)
        messages = list(request.messages)
        usage = self._usage
        for _ in range(self._max_rounds):
            collector = ToolCallCollector()
            said: list[str] = []
            signed: list[SignedThinking] = []
            ended = False
            async for event in self._provider.stream_chat(
                replace(request, messages=tuple(messages))
            ):
                if isinstance(event, ToolCallDelta):
                    collector.add(event)
                elif isinstance(event, UsageReported):
                    usage.add(event)
                elif isinstance(event, StreamDone):
                    ended = True
                elif isinstance(event, ThinkingSigned):
                    signed.append(event.block)  # handed back with the calls
                elif isinstance(event, TextDelta):
                    if event.text and not said and self._text:
                        event = TextDelta("\n\n" + event.text)  # a new round's words
                    said.append(event.text)
                    self._text += len(event.text)
                    yield event
                else:
                    yield event
            if not ended:
                raise MalformedStreamError("The stream ended before the answer was complete.")
            calls = collector.calls()
            if not calls:
                yield usage.event()
                yield StreamDone("stop")
                return
            broken = {call.call_id: raw for call, raw in collector.malformed()}
            unique = [self._unique(call) for call in calls]
            messages.append(
                ChatMessage(
                    "assistant",
                    "".join(said),
                    tool_calls=tuple(unique),
                    signed_thinking=tuple(signed),
                )
            )
            for call, named in zip(calls, unique, strict=True):
                # closed with this generator (a Stop), so the call stops its tool now
                async with contextlib.aclosing(
                    self._call(named, broken.get(call.call_id), messages)
                ) as updates:
                    async for update in updates:
                        yield update
                found = self._sources_found()
                if found is not None:
                    yield found
            make_room(messages, self._room, keep_last=len(calls))
        yield usage.event()
        raise worded(
            MiraError,
            "The agent stopped after {rounds} rounds of tool calls.",
            {"rounds": self._max_rounds},
            hint=TOO_MANY_ROUNDS_HINT,
        )

    async def _call(
        self, call: ToolCall, malformed: str | None, messages: list[ChatMessage]
    ) -> AsyncGenerator[ToolCardChanged | ProgressChanged, None]:
        """Run one call (asking first when it must), yielding its card's states,
        and append its result to ``messages``."""
        if call.name == progress.NAME and malformed is None:
            try:
                steps = progress.parse_steps(call.arguments)
            except ToolRefused as exc:
                messages.append(_result(call, exc.message))
                return
            yield ProgressChanged(self.thread_id, self.message_id, steps)
            messages.append(_result(call, progress.progress_result(steps)))
            return
        if call.name == subagents.NAME and malformed is None and not self._sub:
            async for update in self._delegate(call, messages):
                yield update
            return
        if call.name == questions.NAME and malformed is None and not self._sub:
            async for update in self._ask_user(call, messages):
                yield update
            return
        card = ToolCard(call.call_id, call.name, call.arguments, _said(call), ToolStatus.RUNNING)
        card = replace(card, at=self._text)
        outcome: ToolOutcome | None = None
        if malformed is not None:
            outcome = ToolOutcome(False, f"The arguments were not a JSON object: {malformed[:500]}")
        else:
            try:
                preview = self._toolbox.preview(call)
                diff, diff_cut = cut_diff(preview.diff)
                card = replace(
                    card,
                    summary=preview.summary,
                    diff=diff,
                    diff_cut=diff_cut,
                    template=preview.template,
                    params=preview.params,
                )
            except ToolRefused as exc:
                outcome = ToolOutcome(False, exc.message)
        asks = outcome is None and self.mode is AgentMode.MANUAL
        if asks and await self._toolbox.asks_first(call):
            card = replace(card, status=ToolStatus.WAITING, approval=ApprovalState.PENDING)
            yield self._changed(card)
            approved = await self.approvals.ask(call.call_id) is True
            if not approved:
                card = replace(card, status=ToolStatus.DENIED, approval=ApprovalState.DENIED)
                yield self._changed(card)
                messages.append(_result(call, DENIED_RESULT))
                return
            card = replace(card, status=ToolStatus.RUNNING, approval=ApprovalState.APPROVED)
        if outcome is None:
            yield self._changed(card)
            running = _Running(self._toolbox, call)
            outputs = running.outputs()
            shown = ""  # the command's output so far
            try:
                async for shown in outputs:
                    yield self._changed(replace(card, output=_card_output(shown)))
            except (asyncio.CancelledError, GeneratorExit):
                # stopped inside the tool's wait, or while the answer's reader
                # was elsewhere (this generator closed): the tool stops now
                await outputs.aclose()
                await self._keep_stopped(card, running.stopped, shown)
                raise
            outcome = running.outcome
        card = replace(
            card,
            status=ToolStatus.DONE if outcome.ok else ToolStatus.FAILED,
            approval=ApprovalState.EXECUTED if card.approval else None,
            output=_card_output(outcome.output),
            ok=outcome.ok,
            changed=tuple(dict.fromkeys(c.path for c in outcome.changes)),
        )
        if outcome.changes and self._on_changes is not None:
            await self._on_changes(card, outcome.changes)
        yield self._changed(card)
        messages.append(_result(call, outcome.output))

    async def _keep_stopped(self, card: ToolCard, outcome: ToolOutcome | None, shown: str) -> None:
        """A call stopped with the answer that changed files (a command cut
        off half-way): its changes go to the journal and its card is kept
        for the run's end (``stopped_cards``), with the output it had shown
        and what it changed, so they can be rolled back."""
        if outcome is None or not outcome.changes:
            return
        output = f"{shown}\n{outcome.output}" if shown else outcome.output
        stopped = replace(
            card,
            status=ToolStatus.EXPIRED,
            output=_card_output(output),
            ok=False,
            changed=tuple(dict.fromkeys(c.path for c in outcome.changes)),
        )
        if self._on_changes is not None:
            try:
                await asyncio.shield(self._on_changes(stopped, outcome.changes))
            except Exception:  # the stop stays a stop; the card offers no rollback
                log.warning("changes of a stopped call not journalled", exc_info=True)
                stopped = replace(stopped, changed=())
        self.stopped_cards[card.call_id] = stopped

    async def _delegate(
        self, call: ToolCall, messages: list[ChatMessage]
    ) -> AsyncIterator[ToolCardChanged]:
        """Run a sub-agent on the call's task; its report is the result."""
        card = ToolCard(call.call_id, call.name, call.arguments, _said(call), ToolStatus.RUNNING)
        card = replace(card, at=self._text)
        try:
            shown = subagents.preview(call.arguments)
            task = subagents.parse_task(call.arguments)[1]
        except ToolRefused as exc:
            yield self._changed(
                replace(card, status=ToolStatus.FAILED, output=exc.message, ok=False)
            )
            messages.append(_result(call, exc.message))
            return
        card = replace(card, summary=shown.summary, template=shown.template, params=shown.params)
        yield self._changed(card)
        outcome = await self._sub_run(task)
        status = ToolStatus.DONE if outcome.ok else ToolStatus.FAILED
        done = replace(card, status=status, output=_card_output(outcome.output), ok=outcome.ok)
        yield self._changed(done)
        messages.append(_result(call, outcome.output))

    async def _sub_run(self, task: str) -> ToolOutcome:
        """A sub-agent's run on ``task``, with the read-only tools."""
        assert self._base is not None
        toolbox = Toolbox(
            self._toolbox.scope,
            self._toolbox.web,
            read_only=True,
            knowledge=self._toolbox.knowledge,  # the same numbers for the whole answer
        )
        sub = AgentLoop(
            self._provider,
            toolbox,
            thread_id=self.thread_id,
            message_id=self.message_id,
            mode=AgentMode.AUTO,
            max_rounds=subagents.MAX_ROUNDS,
            room=self._room,
            memory=self._memory,
            sub=True,
        )
        request = replace(self._base, messages=(ChatMessage("user", task),))
        said: list[str] = []
        looked_at: dict[str, str] = {}
        try:
            async for event in sub.stream_chat(request):
                if isinstance(event, TextDelta):
                    said.append(event.text)
                elif isinstance(event, ToolCardChanged):
                    looked_at[event.card.call_id] = event.card.summary
        except MiraError as exc:
            text = "".join(said).strip()
            kept = f"\n\nWhat it had so far:\n{text}" if text else ""
            return ToolOutcome(False, f"The sub-agent failed: {exc.message}{kept}")
        finally:
            self._usage.add(sub._usage.event(), own=False)
        return ToolOutcome(True, subagents.report("".join(said), list(looked_at.values())))

    async def _ask_user(
        self, call: ToolCall, messages: list[ChatMessage]
    ) -> AsyncIterator[ToolCardChanged]:
        """Show the questions and wait for the answers (in any mode)."""
        try:
            asked = questions.parse_questions(call.arguments)
        except ToolRefused as exc:
            card = ToolCard(call.call_id, call.name, call.arguments, _said(call), ToolStatus.FAILED)
            yield self._changed(replace(card, output=exc.message, ok=False, at=self._text))
            messages.append(_result(call, exc.message))
            return
        summary = asked[0].text if len(asked) == 1 else f"{asked[0].text} (+{len(asked) - 1})"
        card = ToolCard(call.call_id, call.name, call.arguments, summary, ToolStatus.WAITING)
        card = replace(card, at=self._text)
        yield self._changed(card)
        self._asking.add(call.call_id)
        given = await self.approvals.ask(call.call_id)
        if not isinstance(given, list):
            yield self._changed(replace(card, status=ToolStatus.DENIED, output=""))
            messages.append(_result(call, questions.DISMISSED))
            return
        said = questions.answered(asked, [str(a) for a in given])
        yield self._changed(replace(card, status=ToolStatus.DONE, output=said))
        messages.append(_result(call, said))

    def _sources_found(self) -> SourcesFound | None:
        """The knowledge base's sources when a search (the call's own or a
        sub-agent's) found more since the last report."""
        knowledge = self._toolbox.knowledge
        if self._sub or knowledge is None or knowledge.searches == self._searches:
            return None
        self._searches = knowledge.searches
        data = knowledge.data()
        return None if data is None else SourcesFound(self.thread_id, self.message_id, data)

    def _unique(self, call: ToolCall) -> ToolCall:
        """``call`` with an id no other call of this answer had: servers that
        number calls per reply (Ollama's ``call_0``) repeat them every round,
        and cards, approvals and rollbacks are keyed by it."""
        call_id, number = call.call_id, 1
        while call_id in self._ids:
            number += 1
            call_id = f"{call.call_id}-{number}"
        self._ids.add(call_id)
        return call if call_id == call.call_id else replace(call, call_id=call_id)

    def _changed(self, card: ToolCard) -> ToolCardChanged:
        return ToolCardChanged(self.thread_id, self.message_id, card)


class _Running:
    """A tool running in a task of its own, so that a command's output can be
    shown while it grows; cancelling the answer cancels the tool (a command
    and its processes are stopped)."""

    def __init__(self, toolbox: Toolbox, call: ToolCall) -> None:
        self._news: asyncio.Queue[str] = asyncio.Queue()
        self._task = asyncio.ensure_future(toolbox.run(call, self._news.put_nowait))
        self.outcome: ToolOutcome = ToolOutcome(False, "")
        #: what a tool stopped with the answer still ended with (a command's
        #: changes so far), when it could say
        self.stopped: ToolOutcome | None = None

    async def outputs(self) -> AsyncGenerator[str, None]:
        """The output so far, each time it grew, until the tool ends."""
        try:
            while True:
                news = asyncio.ensure_future(self._news.get())
                await asyncio.wait({self._task, news}, return_when=asyncio.FIRST_COMPLETED)
                if not news.done():
                    news.cancel()
                    break
                latest = news.result()
                while not self._news.empty():
                    latest = self._news.get_nowait()
                yield latest
        except BaseException:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                self.stopped = await self._task
            raise
        self.outcome = self._task.result()


def _said(call: ToolCall) -> str:
    """A call in one line before (or without) its preview: ``grep import[``."""
    values = [str(v) for v in call.arguments.values() if isinstance(v, str | int) and v != ""]
    line = " ".join([call.name, *values]).replace("\n", " ")
    return line if len(line) <= 80 else line[:79] + "…"


def _result(call: ToolCall, output: str) -> ChatMessage:
    return ChatMessage("tool", output, tool_call_id=call.call_id, name=call.name)


def _card_output(output: str) -> str:
    """What a card keeps of an output: all of a short one; the beginning and
    the end (a command's last lines, its exit code) of a long one."""
    if len(output) <= CARD_OUTPUT_LIMIT:
        return output
    head, tail = CARD_OUTPUT_LIMIT * 3 // 8, CARD_OUTPUT_LIMIT * 5 // 8
    cut = len(output) - head - tail
    return f"{output[:head]}\n… ({cut:,} characters not kept here) …\n{output[-tail:]}"


class _UsageSum:
    """The usage of every round added up (None where no round reported it)."""

    def __init__(self) -> None:
        self.prompt: int | None = None
        self.completion: int | None = None
        self.reasoning: int | None = None
        self.largest: int | None = None  # of this loop's own rounds

    def add(self, event: UsageReported, *, own: bool = True) -> None:
        """One round's usage (``own``), or a sub-agent's whole (its requests
        are not this conversation's context)."""
        self.prompt = _plus(self.prompt, event.prompt_tokens)
        self.completion = _plus(self.completion, event.completion_tokens)
        self.reasoning = _plus(self.reasoning, event.reasoning_tokens)
        if own and event.prompt_tokens is not None:
            self.largest = max(self.largest or 0, event.prompt_tokens)

    def event(self) -> UsageReported:
        return UsageReported(self.prompt, self.completion, self.reasoning, self.largest)


def _plus(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b
