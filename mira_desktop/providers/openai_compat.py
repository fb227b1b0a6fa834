"""The adapter for any OpenAI-compatible chat server (OpenAI, Ollama's ``/v1``,
LM Studio, llama.cpp, vLLM, OpenRouter…). It owns the request body of
``POST {base}/chat/completions`` (``base`` includes ``/v1``; with the tools
the model may call, its earlier calls and their results) and the parsing of
its SSE stream into core stream events: content, reasoning (``reasoning_content``
/ ``reasoning`` fields or a leading ``<think>`` block), tool-call fragments,
usage, ``[DONE]`` and in-stream error objects; plus ``GET {base}/models``
and the optional embeddings, rerank, image and speech-to-text endpoints."""

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
from mira_desktop.core.illustration import GeneratedImage
from mira_desktop.core.models import (
    ChatMessage,
    ChatRequest,
    ModelInfo,
    Reasoning,
    ToolCall,
    ToolSpec,
)

from .base import HttpProvider
from .embeddings import (
    batches,
    openai_embedding_body,
    parse_openai_embeddings,
    parse_rerank,
    rerank_body,
)
from .errormap import TRUNCATED_MESSAGE, error_from_stream_obj, excerpt
from .images import IMAGE_TIMEOUT_S, image_body, parse_image_answer
from .request_body import request_content
from .streams import (
    SSEEvent,
    ThinkSplitter,
    as_dict,
    drain,
    flush_text,
    iter_sse_data,
    loads_chunk,
    loads_chunks,
    split_events,
)
from .transcription import (
    TRANSCRIPTION_PATH,
    TRANSCRIPTION_TIMEOUT_S,
    parse_transcription,
    transcription_fields,
    transcription_files,
)

log = logging.getLogger(__name__)


def function_tool(spec: ToolSpec) -> dict[str, Any]:
    """A tool in OpenAI's function shape (Ollama's ``/api/chat`` takes it too)."""
    function = {
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters or {"type": "object", "properties": {}},
    }
    return {"type": "function", "function": function}


def _call(call: ToolCall) -> dict[str, Any]:
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    return {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _message(message: ChatMessage) -> dict[str, Any]:
    """One message in OpenAI form; a user message with images becomes parts,
    an assistant's tool calls go in ``tool_calls`` (arguments as JSON text)
    and a tool's result names the call it answers."""
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [_call(call) for call in message.tool_calls],
        }
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    if message.role != "user" or not message.images:
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = []
    if message.content:
        parts.append({"type": "text", "text": message.content})
    for image in message.images:
        url = f"data:{image.mime};base64,{image.data_base64}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": "user", "content": parts}


def effort(reasoning: Reasoning) -> Reasoning:
    """The ``reasoning_effort`` of a level: "off" is sent as "low"."""
    return Reasoning.LOW if reasoning is Reasoning.OFF else reasoning


def build_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of a streamed ``/chat/completions`` request. A reasoning
    level goes out as ``reasoning_effort`` (OpenAI's reasoning models,
    gpt-oss on LM Studio, vLLM, llama.cpp); these servers share no way to
    turn reasoning off, so "off" asks for the least they all take, "low"."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    for key in ("temperature", "top_p", "max_tokens"):
        value = getattr(request, key)
        if value is not None:
            body[key] = value
    if request.tools:
        body["tools"] = [function_tool(spec) for spec in request.tools]
    if request.reasoning:
        body["reasoning_effort"] = str(effort(request.reasoning))
    body.update(request.extra)
    return body


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
        datas = [data.strip() for data in batch]
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


class OpenAIProvider(HttpProvider):
    """A server speaking OpenAI's chat-completions API; ``base_url`` includes
    ``/v1`` (e.g. ``http://localhost:11434/v1``)."""

    def _auth_headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; ends with ``StreamDone`` or raises a ``ProviderError``."""
        url = self._url("/chat/completions")
        log.debug("%s: POST %s model=%s", self.name, url, request.model)
        parser = OpenAIStreamParser(self.name)
        body = await request_content(build_body, request, len(request.messages))
        async with self._open_stream(url, body, reasoning=bool(request.reasoning)) as response:
            if response.headers.get("content-type", "").startswith("application/json"):
                await response.aread()
                for event in parser.feed_completion(response.text):
                    yield event
                return
            batches = iter_sse_data(response.aiter_bytes())
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
        ending = parser.finish_at_end()
        if ending is None:
            raise MalformedStreamError(TRUNCATED_MESSAGE, provider=self.name)
        for event in ending:
            yield event

    async def list_models(self) -> list[ModelInfo]:
        """``GET {base}/models`` → the models' ids, sorted by name."""
        data = await self._get_json("/models")
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise MalformedStreamError(
                f"{self._url('/models')} did not list models", provider=self.name
            )
        names = {str(item["id"]) for item in items if isinstance(item, dict) and item.get("id")}
        return [ModelInfo(name=name) for name in sorted(names)]

    async def embed(self, texts: list[str], model: str) -> list[list[float]]:
        """``POST {base}/embeddings`` in batches → one vector per text, in order."""
        vectors: list[list[float]] = []
        for batch in batches(texts):
            log.debug("%s: POST /embeddings model=%s n=%d", self.name, model, len(batch))
            data = await self._post_json("/embeddings", openai_embedding_body(batch, model))
            vectors.extend(parse_openai_embeddings(data, len(batch), self.name))
        return vectors

    async def generate_image(self, prompt: str, model: str) -> GeneratedImage:
        """``POST {base}/images/generations`` → the first image's bytes (a
        server that answers with a link has it fetched)."""
        log.debug("%s: POST /images/generations model=%s", self.name, model)
        body = image_body(prompt, model)
        answer = parse_image_answer(
            await self._post_json("/images/generations", body, timeout=IMAGE_TIMEOUT_S), self.name
        )
        data = answer.data if answer.data is not None else await self._get_bytes(answer.url or "")
        return GeneratedImage(data, answer.revised_prompt)

    async def transcribe(
        self, audio: bytes, filename: str, mime: str, model: str, language: str | None = None
    ) -> str:
        """``POST {base}/audio/transcriptions`` (a multipart form) → the text
        spoken in ``audio``, as the server wrote it."""
        log.debug("%s: POST %s model=%s bytes=%d", self.name, TRANSCRIPTION_PATH, model, len(audio))
        data = await self._post_form(
            TRANSCRIPTION_PATH,
            transcription_fields(model, language),
            transcription_files(audio, filename, mime),
            timeout=TRANSCRIPTION_TIMEOUT_S,
        )
        return parse_transcription(data, self.name)

    async def rerank(
        self, query: str, documents: list[str], model: str, top_n: int | None = None
    ) -> list[tuple[int, float]]:
        """``POST {base}/rerank`` (Jina/Cohere style) → ``(index, relevance)``
        pairs, most relevant first. Optional: servers without it answer 404."""
        if not documents:
            return []
        body = rerank_body(query, documents, model, top_n)
        log.debug("%s: POST /rerank model=%s n=%d", self.name, model, len(documents))
        return parse_rerank(await self._post_json("/rerank", body), len(documents), self.name)
