"""The adapter for Anthropic's Messages API (``base_url`` is the root, e.g.
``https://api.anthropic.com``). It owns the headers (``x-api-key``,
``anthropic-version``), the body of ``POST /v1/messages`` (system prompt as a
top-level field, image blocks, tools with ``tool_use`` / ``tool_result``
blocks, the required ``max_tokens``, extended thinking for a reasoning level)
and the parsing of its named SSE events into core stream events: text,
thinking (each block closed with its signature, for the agent to hand back)
and tool-use blocks, token usage, ``message_stop`` and ``error`` events; plus
``GET /v1/models`` for the model list."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from mira_desktop.core.errors import BadRequestError, MalformedStreamError
from mira_desktop.core.events import (
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSigned,
    ToolCallDelta,
    UsageReported,
)
from mira_desktop.core.models import (
    ChatMessage,
    ChatRequest,
    ModelInfo,
    Reasoning,
    SignedThinking,
    ToolSpec,
)

from .base import HttpProvider
from .errormap import (
    ANTHROPIC_ENDPOINT_NOT_FOUND_HINT,
    TRUNCATED_MESSAGE,
    error_from_stream_obj,
    excerpt,
)
from .request_body import request_content
from .streams import SSEEvent, as_dict, drain, iter_sse_batches, loads_chunk

log = logging.getLogger(__name__)

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
_MODEL_PAGES = 20


def _tool(spec: ToolSpec) -> dict[str, Any]:
    """A tool as the API takes it; it requires a schema, so a tool without
    parameters gets the empty object's."""
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.parameters or {"type": "object", "properties": {}},
    }


def _blocks(message: ChatMessage) -> list[dict[str, Any]]:
    """A user message as content blocks: its images (base64), then its text."""
    blocks: list[dict[str, Any]] = [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": image.mime, "data": image.data_base64},
        }
        for image in message.images
    ]
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    return blocks


def _thinking(block: SignedThinking) -> dict[str, Any]:
    """A reasoning block handed back as the API sent it (it checks the signature)."""
    if block.redacted:
        return {"type": "redacted_thinking", "data": block.redacted}
    return {"type": "thinking", "thinking": block.text, "signature": block.signature}


def _message(message: ChatMessage) -> dict[str, Any]:
    """One user/assistant message: plain text, or blocks when it has images
    or (an assistant's) tool calls — its signed reasoning first (the API
    requires it back when thinking is on), its text, then a ``tool_use``
    block per call. A whitespace-only text block is left out: the API
    refuses one."""
    if message.role == "assistant" and message.tool_calls:
        blocks: list[dict[str, Any]] = [_thinking(block) for block in message.signed_thinking]
        if message.content.strip():
            blocks.append({"type": "text", "text": message.content})
        blocks += [
            {"type": "tool_use", "id": call.call_id, "name": call.name, "input": call.arguments}
            for call in message.tool_calls
        ]
        return {"role": "assistant", "content": blocks}
    if not message.images:
        return {"role": message.role, "content": message.content}
    return {"role": message.role, "content": _blocks(message)}


#: a refusal that names the thinking's shape (``thinking.type``, adaptive, a budget)
_THINKING_REFUSED = re.compile(r"thinking|adaptive|budget_tokens", re.IGNORECASE)

#: what an empty tool result says: the API refuses an empty one
EMPTY_RESULT = "(no output)"


def _result(message: ChatMessage) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id or "",
        "content": message.content if message.content.strip() else EMPTY_RESULT,
    }


def _messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """The ``messages`` list: system messages left out (they go in ``system``),
    and tool results sent the Anthropic way — a ``user`` message of
    ``tool_result`` blocks, one message for a run of results (the roles must
    alternate). A user message right after them joins that message, its
    blocks after the results as the API requires."""
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the blocks of the open results message
    for message in messages:
        if message.role == "tool":
            if results is None:
                results = []
                out.append({"role": "user", "content": results})
            results.append(_result(message))
        elif message.role == "user" and results is not None:
            results += _blocks(message)
            results = None
        elif message.role in ("user", "assistant"):
            out.append(_message(message))
            results = None
    return out


#: extended thinking's budget (tokens) for each level; the API's minimum is 1,024
THINKING_BUDGETS = {Reasoning.LOW: 2_048, Reasoning.MEDIUM: 8_192, Reasoning.HIGH: 16_384}
#: with thinking on, the API takes top_p only from here to 1 (and no temperature)
THINKING_MIN_TOP_P = 0.95
#: the two shapes of thinking: a fixed budget (``{"type": "enabled",
#: "budget_tokens"}``, Claude up to 4.5; deprecated on 4.6, refused from Opus
#: 4.7 on) and adaptive (``{"type": "adaptive"}`` with ``output_config.effort``,
#: Claude 4.6 and later)
BUDGETED, ADAPTIVE = "budgeted", "adaptive"
_ADAPTIVE_FROM = (4, 6)
_VERSION = re.compile(r"claude-(?:[a-z]+-)*?(\d{1,2})(?:[-.](\d{1,2})(?!\d))?(?:[-.@]|$)")


def thinking_style(model: str) -> str:
    """The shape of thinking a model takes, by its version in the id
    (``claude-opus-4-7``, ``claude-sonnet-4-5-20250929``, ``claude-3-7-sonnet``,
    ``claude-opus-4-20250514``: 4.0): adaptive from 4.6 on; budgeted for older
    ones and for ids without a Claude version (servers imitating the API)."""
    found = _VERSION.search(model.lower())
    if found is None:
        return BUDGETED
    version = (int(found.group(1)), int(found.group(2) or 0))
    return ADAPTIVE if version >= _ADAPTIVE_FROM else BUDGETED


def build_body(request: ChatRequest, style: str | None = None) -> dict[str, Any]:
    """The JSON body of a streamed ``/v1/messages`` request.

    A reasoning level turns thinking on, in the shape the model takes
    (``style``, else :func:`thinking_style`): a fixed budget for the level,
    or adaptive thinking with the level as its effort. ``max_tokens`` (the
    answer's room, the role's or 4,096) is raised by the level's budget in
    both, since thinking counts against it. Thinking takes no temperature
    and a ``top_p`` of at least 0.95: a role's other values are left out
    rather than refused. Off, or no level, sends no thinking (the API's
    default)."""
    system = "\n\n".join(m.content for m in request.messages if m.role == "system" and m.content)
    answer = request.max_tokens if request.max_tokens is not None else DEFAULT_MAX_TOKENS
    budget = THINKING_BUDGETS.get(request.reasoning) if request.reasoning else None
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": answer + (budget or 0),
        "messages": _messages(request.messages),
        "stream": True,
    }
    if system:
        body["system"] = system
    if budget and (style or thinking_style(request.model)) == ADAPTIVE:
        body["thinking"] = {"type": ADAPTIVE}
        body["output_config"] = {"effort": str(request.reasoning)}
    elif budget:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    if request.temperature is not None and not budget:
        body["temperature"] = request.temperature
    if request.top_p is not None and (not budget or request.top_p >= THINKING_MIN_TOP_P):
        body["top_p"] = request.top_p
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    body.update(request.extra)
    return body


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class AnthropicStreamParser:
    """Turns the SSE events of one answer into stream events; ``done`` becomes
    true at ``message_stop``. Unknown event types are ignored."""

    def __init__(self, provider: str | None = None) -> None:
        self.provider = provider
        self.done = False
        self.signatures: dict[int, str] = {}
        self._thoughts: dict[int, list[str]] = {}  # an open thinking block's text
        self._tools: dict[int, int] = {}  # content block index → tool-call index
        self._input: int | None = None
        self._output: int | None = None
        self._stop_reason: str | None = None
        self._handlers: dict[str, Callable[[dict[str, Any]], list[StreamEvent]]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "error": self._error,
        }

    def feed(self, sse: SSEEvent) -> list[StreamEvent]:
        obj = loads_chunk(sse.data, provider=self.provider)
        if not isinstance(obj, dict):
            raise MalformedStreamError(
                f"The server sent an unexpected event: {excerpt(sse.data)!r}",
                provider=self.provider,
            )
        handler = self._handlers.get(str(obj.get("type") or sse.event))
        return handler(obj) if handler else []

    def _message_start(self, obj: dict[str, Any]) -> list[StreamEvent]:
        message = as_dict(obj.get("message"))
        self._usage(message.get("usage"))
        return []

    def _usage(self, usage: Any) -> None:
        """Prompt tokens include cache writes and reads; output is cumulative."""
        if not isinstance(usage, dict):
            return
        parts = [
            _count(usage.get(key))
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        ]
        if any(part is not None for part in parts):
            self._input = sum(part or 0 for part in parts)
        if _count(usage.get("output_tokens")) is not None:
            self._output = usage["output_tokens"]

    def _block_start(self, obj: dict[str, Any]) -> list[StreamEvent]:
        index, block = obj.get("index"), obj.get("content_block")
        if not isinstance(block, dict) or not isinstance(index, int):
            return []
        kind = block.get("type")
        if kind == "tool_use":
            tool = self._tools[index] = len(self._tools)
            # Anthropic starts the input empty and streams it; a server that
            # imitates the API may send it whole here instead
            given = block.get("input")
            arguments = json.dumps(given) if isinstance(given, dict) and given else ""
            return [ToolCallDelta(tool, block.get("id"), block.get("name"), arguments)]
        if kind == "text" and block.get("text"):
            return [TextDelta(str(block["text"]))]
        if kind == "thinking":
            text = str(block.get("thinking") or "")
            self._thoughts[index] = [text]
            return [ThinkingDelta(text)] if text else []
        if kind == "redacted_thinking" and block.get("data"):
            return [ThinkingSigned(SignedThinking(redacted=str(block["data"])))]
        return []

    def _block_delta(self, obj: dict[str, Any]) -> list[StreamEvent]:
        index, delta = obj.get("index"), obj.get("delta")
        if not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return [TextDelta(str(delta["text"]))]
        if kind == "thinking_delta" and delta.get("thinking"):
            text = str(delta["thinking"])
            if isinstance(index, int):
                self._thoughts.setdefault(index, []).append(text)
            return [ThinkingDelta(text)]
        if kind == "signature_delta" and isinstance(index, int):
            signature = str(delta.get("signature") or "")
            self.signatures[index] = self.signatures.get(index, "") + signature
        elif kind == "input_json_delta" and delta.get("partial_json") and index in self._tools:
            return [ToolCallDelta(self._tools[index], arguments=str(delta["partial_json"]))]
        return []

    def _block_stop(self, obj: dict[str, Any]) -> list[StreamEvent]:
        """A thinking block ends: it goes out whole with its signature (the
        agent hands it back before its tool results). Unsigned, it is of no
        use there and nothing goes out."""
        index = obj.get("index")
        text = self._thoughts.pop(index, None) if isinstance(index, int) else None
        signature = self.signatures.get(index, "") if isinstance(index, int) else ""
        if text is None or not signature:
            return []
        return [ThinkingSigned(SignedThinking("".join(text), signature))]

    def _message_delta(self, obj: dict[str, Any]) -> list[StreamEvent]:
        delta = obj.get("delta")
        if isinstance(delta, dict) and delta.get("stop_reason"):
            self._stop_reason = str(delta["stop_reason"])
        self._usage(obj.get("usage"))
        return []

    def _message_stop(self, obj: dict[str, Any]) -> list[StreamEvent]:
        self.done = True
        return [
            UsageReported(prompt_tokens=self._input, completion_tokens=self._output),
            StreamDone(self._stop_reason),
        ]

    def _error(self, obj: dict[str, Any]) -> list[StreamEvent]:
        error = error_from_stream_obj(obj, provider=self.provider)
        if error is None:
            raise MalformedStreamError(
                f"The server sent an unreadable error: {excerpt(str(obj))!r}",
                provider=self.provider,
            )
        raise error


class AnthropicProvider(HttpProvider):
    """Anthropic's Messages API (or a server imitating it)."""

    endpoint_not_found_hint = ANTHROPIC_ENDPOINT_NOT_FOUND_HINT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: the thinking shape a model took after its id's guess was refused (by model)
        self._learned: dict[str, str] = {}

    def _auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; ends with ``StreamDone`` or raises a ``ProviderError``.

        With thinking on, a refusal of its shape before anything arrived (an
        id that does not say which shape the model takes) is answered once
        with the other shape; if that is refused too, the first refusal is
        the one reported."""
        thinking = request.reasoning not in (None, Reasoning.OFF)  # off sends nothing here
        learned = self._learned
        style = (learned.get(request.model) or thinking_style(request.model)) if thinking else None
        started = False
        try:
            async for event in self._stream(request, style):
                started = True
                yield event
            return
        except BadRequestError as exc:
            if style is None or started or not _THINKING_REFUSED.search(str(exc)):
                raise
            refused = exc
        other = BUDGETED if style == ADAPTIVE else ADAPTIVE
        log.info("%s refused %s thinking for %s; trying %s", self.name, style, request.model, other)
        try:
            async for event in self._stream(request, other):
                if not started:
                    learned[request.model] = other  # the next answers ask this way at once
                started = True
                yield event
        except BadRequestError:
            if started:
                raise
            raise refused from None

    async def _stream(self, request: ChatRequest, style: str | None) -> AsyncIterator[StreamEvent]:
        url = self._url("/v1/messages")
        log.debug("%s: POST %s model=%s", self.name, url, request.model)
        parser = AnthropicStreamParser(self.name)
        body = await request_content(lambda r: build_body(r, style), request, len(request.messages))
        async with self._open_stream(url, body, reasoning=style is not None) as response:
            batches = iter_sse_batches(response.aiter_bytes())
            async for batch in batches:
                for sse in batch:
                    for event in parser.feed(sse):
                        yield event
                    if parser.done:
                        break
                if parser.done:
                    break
            if parser.done:
                await drain(batches)
                return
        raise MalformedStreamError(TRUNCATED_MESSAGE, provider=self.name)

    async def list_models(self) -> list[ModelInfo]:
        """``GET /v1/models`` (following pages) → the models' ids, sorted."""
        names: set[str] = set()
        params: dict[str, Any] = {"limit": 1000}
        for _ in range(_MODEL_PAGES):
            data = await self._get_json("/v1/models", params=params)
            items = data.get("data") if isinstance(data, dict) else None
            if not isinstance(items, list):
                raise MalformedStreamError(
                    f"{self._url('/v1/models')} did not list models", provider=self.name
                )
            names.update(str(i["id"]) for i in items if isinstance(i, dict) and i.get("id"))
            if not (data.get("has_more") and data.get("last_id")):
                break
            params = {"limit": 1000, "after_id": data["last_id"]}
        return [ModelInfo(name=name) for name in sorted(names)]
