"""The adapter for Ollama's native API (``base_url`` is the server root, e.g.
``http://localhost:11434``). It owns the body of ``POST /api/chat`` (messages
with base64 ``images``, tools and tool calls, sampling settings under
``options``) and the parsing of its NDJSON stream into core stream events:
``message.content`` (with a leading ``<think>`` block split out),
``message.thinking``, ``message.tool_calls``, the final ``done: true`` line
with its token counts, and ``{"error": ...}`` lines; plus ``GET /api/tags``
for the model list."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
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
from mira_desktop.core.models import ChatMessage, ChatRequest, ModelInfo, Reasoning

from .base import HttpProvider
from .embeddings import batches, ollama_embedding_body, parse_ollama_embeddings
from .errormap import (
    OLLAMA_ENDPOINT_NOT_FOUND_HINT,
    TRUNCATED_MESSAGE,
    error_from_stream_obj,
    excerpt,
)
from .openai_compat import function_tool
from .request_body import request_content
from .streams import (
    ThinkSplitter,
    as_dict,
    drain,
    flush_text,
    iter_line_batches,
    loads_chunk,
    loads_chunks,
    split_events,
)

log = logging.getLogger(__name__)

_OPTION_NAMES = {"temperature": "temperature", "top_p": "top_p", "max_tokens": "num_predict"}


def _message(message: ChatMessage) -> dict[str, Any]:
    """One message; an assistant's tool calls carry their arguments as an
    object, a tool's result names the tool (``tool_name``)."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:
        data["images"] = [image.data_base64 for image in message.images]
    if message.role == "assistant" and message.tool_calls:
        data["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.role == "tool" and message.name:
        data["tool_name"] = message.name
    return data


#: models whose ``think`` takes a level ("low", "medium", "high") instead of a switch
_LEVELLED_THINKERS = ("gpt-oss",)


def think_value(model: str, reasoning: Reasoning) -> bool | str:
    """Ollama's ``think``: false for off; for a level, true — or, for models
    that take a level (gpt-oss: it ignores true/false and cannot stop
    thinking), the level itself, "low" for off."""
    base = model.rsplit("/", 1)[-1].lower()
    if base.startswith(_LEVELLED_THINKERS):
        return str(Reasoning.LOW if reasoning is Reasoning.OFF else reasoning)
    return reasoning is not Reasoning.OFF


def build_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of a streamed ``/api/chat`` request. An ``options`` dict in
    ``request.extra`` is merged with the sampling options, not replacing them.
    A reasoning level sets ``think`` (:func:`think_value`)."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
        "stream": True,
    }
    if request.tools:
        body["tools"] = [function_tool(spec) for spec in request.tools]
    if request.reasoning:
        body["think"] = think_value(request.model, request.reasoning)
    options = {
        wire: getattr(request, field)
        for field, wire in _OPTION_NAMES.items()
        if getattr(request, field) is not None
    }
    extra = dict(request.extra)
    if isinstance(extra.get("options"), dict):
        options.update(extra.pop("options"))
    if options:
        body["options"] = options
    body.update(extra)
    return body


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


#: the keys of a message that carries nothing but answer text
_PLAIN_MESSAGE = frozenset(("role", "content"))


class OllamaStreamParser:
    """Turns the NDJSON lines of one answer into stream events; ``done`` becomes
    true at the ``done: true`` line."""

    def __init__(self, provider: str | None = None) -> None:
        self.provider = provider
        self.done = False
        self._splitter = ThinkSplitter()
        self._tool_calls = 0

    def feed(self, line: str) -> list[StreamEvent]:
        if not line.strip():
            return []
        return self._object(loads_chunk(line, provider=self.provider), line)

    def feed_batch(self, lines: list[str]) -> tuple[list[StreamEvent], ProviderError | None]:
        """The events of the lines of one network read (nothing after the
        ``done`` line), and the error that ends the stream among them, if any:
        the events before it are returned all the same (the caller hands them
        on, then raises). The lines' JSON is parsed in one go
        (:func:`~.streams.loads_chunks`), and adjacent text or reasoning
        deltas come out merged (:func:`~mira_desktop.core.events.merge_deltas`)."""
        lines = [line for line in (raw.strip() for raw in lines) if line]
        objs, error = loads_chunks(lines, provider=self.provider)
        out: list[StreamEvent] = []
        try:
            self._objects_into(objs, lines, out)
        except ProviderError as exc:
            return merge_deltas(out), exc
        return merge_deltas(out), None if self.done else error

    def _objects_into(self, objs: list[Any], lines: list[str], out: list[StreamEvent]) -> None:
        """Append the events of a read's lines to ``out``, up to the ``done``
        line. The usual line — a message holding only answer text, not done,
        no error — takes a short path that gathers the text of consecutive
        ones into one piece; any other line goes through :meth:`_object`."""
        texts: list[str] = []
        plain = _PLAIN_MESSAGE
        for obj, line in zip(objs, lines, strict=False):
            if type(obj) is dict and self._splitter.passthrough and obj.get("done") is False:
                message = obj.get("message")
                if type(message) is dict and message.keys() <= plain and not obj.get("error"):
                    content = message.get("content")
                    if content and type(content) is str:
                        texts.append(content)
                    continue
            flush_text(texts, out)
            out.extend(self._object(obj, line))
            if self.done:
                return
        flush_text(texts, out)

    def _object(self, obj: Any, line: str) -> list[StreamEvent]:
        if not isinstance(obj, dict):
            raise MalformedStreamError(
                f"The server sent an unexpected line: {excerpt(line)!r}", provider=self.provider
            )
        if obj.get("error"):
            error = error_from_stream_obj(obj, provider=self.provider)
            if error is not None:
                raise error
        message = obj.get("message")
        events = self._message(message) if isinstance(message, dict) else []
        if obj.get("done") is True:
            self.done = True
            events.extend(self._finish(obj))
        return events

    def _message(self, message: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        thinking = message.get("thinking")
        if isinstance(thinking, str) and thinking:
            events.append(ThinkingDelta(thinking))
        content = message.get("content")
        if isinstance(content, str) and content:
            events.extend(split_events(self._splitter.feed(content)))
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                events.append(self._tool_call(call))
        return events

    def _tool_call(self, call: dict[str, Any]) -> ToolCallDelta:
        """Ollama sends each call whole, with ``arguments`` as an object."""
        function = as_dict(call.get("function"))
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        index, self._tool_calls = self._tool_calls, self._tool_calls + 1
        return ToolCallDelta(
            index=index, call_id=call.get("id"), name=function.get("name"), arguments=arguments
        )

    def _finish(self, obj: dict[str, Any]) -> list[StreamEvent]:
        events = split_events(self._splitter.flush())
        prompt, completion = _count(obj.get("prompt_eval_count")), _count(obj.get("eval_count"))
        if prompt is not None or completion is not None:
            events.append(UsageReported(prompt_tokens=prompt, completion_tokens=completion))
        reason = obj.get("done_reason")
        events.append(StreamDone(str(reason) if reason else None))
        return events


class OllamaProvider(HttpProvider):
    """An Ollama server reached through its native ``/api`` endpoints."""

    endpoint_not_found_hint = OLLAMA_ENDPOINT_NOT_FOUND_HINT

    def _auth_headers(self) -> dict[str, str]:
        # Ollama needs no key; one set anyway (e.g. behind a proxy) goes as Bearer.
        return {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; ends with ``StreamDone`` or raises a ``ProviderError``."""
        url = self._url("/api/chat")
        log.debug("%s: POST %s model=%s", self.name, url, request.model)
        parser = OllamaStreamParser(self.name)
        body = await request_content(build_body, request, len(request.messages))
        async with self._open_stream(
            url, body, accept="application/x-ndjson", reasoning=bool(request.reasoning)
        ) as response:
            batches = iter_line_batches(response.aiter_bytes())
            async for batch in batches:
                events, error = parser.feed_batch(batch)
                for event in events:
                    yield event
                if error is not None:
                    raise error
                if parser.done:
                    break
            if parser.done:
                await drain(batches)
                return
        raise MalformedStreamError(TRUNCATED_MESSAGE, provider=self.name)

    async def list_models(self) -> list[ModelInfo]:
        """``GET /api/tags`` → the pulled models' names, sorted."""
        data = await self._get_json("/api/tags")
        items = data.get("models") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise MalformedStreamError(
                f"{self._url('/api/tags')} did not list models", provider=self.name
            )
        names = {
            str(item.get("name") or item.get("model"))
            for item in items
            if isinstance(item, dict) and (item.get("name") or item.get("model"))
        }
        return [ModelInfo(name=name) for name in sorted(names)]

    async def embed(self, texts: list[str], model: str) -> list[list[float]]:
        """``POST /api/embed`` in batches → one vector per text, in order."""
        vectors: list[list[float]] = []
        for batch in batches(texts):
            log.debug("%s: POST /api/embed model=%s n=%d", self.name, model, len(batch))
            data = await self._post_json("/api/embed", ollama_embedding_body(batch, model))
            vectors.extend(parse_ollama_embeddings(data, len(batch), self.name))
        return vectors
