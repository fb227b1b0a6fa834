"""The parsing of an OpenAI-compatible chat stream (``/chat/completions``
with ``stream: true``) into core stream events: answer text, reasoning
(``reasoning_content`` / ``reasoning`` fields or a leading ``<think>`` block),
tool-call fragments, usage, ``[DONE]``, a finish without ``[DONE]`` and
in-stream error objects; also a whole JSON answer given instead of a stream."""

from __future__ import annotations

import json
from typing import Any

from mira_desktop.core.errors import MalformedStreamError, ProviderError
from mira_desktop.core.events import (
    StreamDone,
    StreamEvent,
    ThinkingDelta,
    ToolCallDelta,
    UsageReported,
    merge_deltas,
)

from .errormap import error_from_stream_obj, excerpt
from .streams import (
    SSEEvent,
    ThinkSplitter,
    as_dict,
    flush_text,
    loads_chunk,
    loads_chunks,
    split_events,
)


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage_event(usage: dict[str, Any]) -> UsageReported:
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return UsageReported(
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
        reasoning_tokens=_int_or_none(reasoning),
    )


def _tool_call_events(tool_calls: Any) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    if not isinstance(tool_calls, list):
        return events
    for position, call in enumerate(tool_calls):
        if not isinstance(call, dict):
            continue
        function = as_dict(call.get("function"))
        index = call.get("index")
        arguments = function.get("arguments") or ""
        if not isinstance(arguments, str):  # a server that sends the object itself
            arguments = json.dumps(arguments)
        call_id, name = call.get("id"), function.get("name")
        events.append(
            ToolCallDelta(
                index=index if isinstance(index, int) else position,
                call_id=call_id if isinstance(call_id, str) else None,
                name=name if isinstance(name, str) else None,
                arguments=arguments,
            )
        )
    return events


#: the keys of a delta that carries nothing but answer text
_PLAIN_DELTA = frozenset(("content", "role"))


class OpenAIStreamParser:
    """Turns the SSE events of one answer into stream events; ``done`` becomes
    true at ``[DONE]``. Usage is remembered and reported just before the end."""

    def __init__(self, provider: str | None = None) -> None:
        self.provider = provider
        self.done = False
        self._splitter = ThinkSplitter()
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None

    def feed(self, sse: SSEEvent) -> list[StreamEvent]:
        data = sse.data.strip()
        if not data:  # a keep-alive ("data: ")
            return []
        if data == "[DONE]":
            self.done = True
            return self._finish()
        return self._chunk(loads_chunk(data, provider=self.provider), data)

    def feed_batch(self, batch: list[str]) -> tuple[list[StreamEvent], ProviderError | None]:
        """The events of the SSE ``data`` of one network read (nothing after
        ``[DONE]``), and the error that ends the stream among them, if any:
        the events before it are returned all the same (the caller hands them
        on, then raises). The chunks' JSON is parsed in one go
        (:func:`~.streams.loads_chunks`), and adjacent text or reasoning
        deltas come out merged (:func:`~mira_desktop.core.events.merge_deltas`)."""
        # an event with empty data is a keep-alive ("data: "): skipped
        datas = [stripped for data in batch if (stripped := data.strip())]
        end = datas.index("[DONE]") if "[DONE]" in datas else len(datas)
        out: list[StreamEvent] = []
        objs, error = loads_chunks(datas[:end], provider=self.provider)
        try:
            self._chunks_into(objs, datas, out)
        except ProviderError as exc:
            return merge_deltas(out), exc
        if error is None and end < len(datas):
            self.done = True
            out.extend(self._finish())
        return merge_deltas(out), error

    def _chunks_into(self, objs: list[Any], datas: list[str], out: list[StreamEvent]) -> None:
        """Append the events of a read's chunks to ``out``. The usual chunk —
        one choice whose delta holds only answer text, no finish, usage or
        error — takes a short path that gathers the text of consecutive ones
        into one piece; any other chunk goes through :meth:`_chunk_into`.
        Thousands of chunks a second pass through here."""
        texts: list[str] = []
        plain = _PLAIN_DELTA
        for obj, data in zip(objs, datas, strict=False):
            if type(obj) is dict and self._splitter.passthrough:
                choices = obj.get("choices")
                if type(choices) is list and len(choices) == 1 and obj.get("usage") is None:
                    choice = choices[0]
                    if (
                        type(choice) is dict
                        and not choice.get("finish_reason")
                        and choice.get("index", 0) == 0
                        and not obj.get("error")
                    ):
                        delta = choice.get("delta")
                        if type(delta) is dict and delta.keys() <= plain:
                            content = delta.get("content")
                            if content and type(content) is str:
                                texts.append(content)
                            continue
            flush_text(texts, out)
            self._chunk_into(obj, data, out)
        flush_text(texts, out)

    def feed_completion(self, body: str) -> list[StreamEvent]:
        """A whole JSON answer (a server that ignored ``stream: true``, or an
        error object sent with status 200): its choices' ``message`` read as one
        delta, then the end of the stream."""
        obj = loads_chunk(body, provider=self.provider)
        if isinstance(obj, dict) and isinstance(obj.get("choices"), list):
            choices = [as_dict(c) for c in obj["choices"]]
            obj = {**obj, "choices": [{**c, "delta": c.get("message")} for c in choices]}
        events = self._chunk(obj, body)
        self.done = True
        return events + self._finish()

    def _chunk(self, obj: Any, raw: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self._chunk_into(obj, raw, events)
        return events

    def _chunk_into(self, obj: Any, raw: str, out: list[StreamEvent]) -> None:
        """Append the events of one chunk to ``out`` (one list for a whole
        read: thousands of chunks a second pass through here)."""
        if not isinstance(obj, dict):
            raise MalformedStreamError(
                f"The server sent an unexpected chunk: {excerpt(raw)!r}", provider=self.provider
            )
        if obj.get("error"):
            error = error_from_stream_obj(obj, provider=self.provider)
            if error is not None:
                raise error
        usage = obj.get("usage")
        if isinstance(usage, dict):
            self._usage = usage
        for choice in obj.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._delta_into(delta, out)
            if choice.get("finish_reason"):
                self._finish_reason = str(choice["finish_reason"])

    def _delta_into(self, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            out.append(ThinkingDelta(reasoning))
        content = delta.get("content")
        if content and isinstance(content, str):
            out.extend(split_events(self._splitter.feed(content)))
        refusal = delta.get("refusal")  # OpenAI's: the model's refusal, said as its answer
        if refusal and isinstance(refusal, str):
            out.extend(split_events(self._splitter.feed(refusal)))
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            out.extend(_tool_call_events(tool_calls))

    def finish_at_end(self) -> list[StreamEvent] | None:
        """The end of an answer whose body ended cleanly without ``[DONE]``:
        complete when a chunk gave its ``finish_reason`` (some servers, e.g.
        ik_llama.cpp, send no ``[DONE]``), else ``None`` (cut short)."""
        if self._finish_reason is None:
            return None
        self.done = True
        return self._finish()

    def _finish(self) -> list[StreamEvent]:
        events = split_events(self._splitter.flush())
        if self._usage is not None:
            events.append(_usage_event(self._usage))
        events.append(StreamDone(self._finish_reason))
        return events
