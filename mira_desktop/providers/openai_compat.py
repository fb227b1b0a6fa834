"""The adapter for any OpenAI-compatible chat server (OpenAI, Ollama's ``/v1``,
LM Studio, llama.cpp, vLLM, OpenRouter…). It owns the request body of
``POST {base}/chat/completions`` (``base`` includes ``/v1``; with the tools
the model may call, its earlier calls and their results) and the parsing of
its SSE stream into core stream events (``openai_stream``: content,
reasoning, tool-call fragments, usage, ``[DONE]``, in-stream errors); plus
``GET {base}/models`` and the optional embeddings, rerank, image and
speech-to-text endpoints."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from mira_desktop.core.errors import MalformedStreamError
from mira_desktop.core.events import StreamEvent
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
from .errormap import TRUNCATED_MESSAGE
from .images import IMAGE_TIMEOUT_S, image_body, parse_image_answer
from .openai_stream import OpenAIStreamParser
from .request_body import request_content
from .streams import drain, iter_sse_data
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


#: OpenAI's reasoning models (also through a router's "openai/" prefix): they
#: refuse ``max_tokens`` for ``max_completion_tokens``, and any temperature or
#: top_p but the default. (gpt-5-chat is not one of them.)
_OPENAI_REASONING_MODEL = re.compile(r"^(?:openai/)?(?:o\d|gpt-5(?!-chat))(?:$|[-.:])")


def build_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of a streamed ``/chat/completions`` request. A reasoning
    level goes out as ``reasoning_effort`` (OpenAI's reasoning models,
    gpt-oss on LM Studio, vLLM, llama.cpp); these servers share no way to
    turn reasoning off, so "off" asks for the least they all take, "low".
    OpenAI's reasoning models get their length limit as
    ``max_completion_tokens`` and no sampling fields."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    reasoning_model = bool(_OPENAI_REASONING_MODEL.match(request.model))
    for key in ("temperature", "top_p", "max_tokens"):
        value = getattr(request, key)
        if value is None:
            continue
        if not reasoning_model:
            body[key] = value
        elif key == "max_tokens":  # the only limit they take; no sampling but the default
            body["max_completion_tokens"] = value
    if request.tools:
        body["tools"] = [function_tool(spec) for spec in request.tools]
    if request.reasoning:
        body["reasoning_effort"] = str(effort(request.reasoning))
    body.update(request.extra)
    return body


async def _head(chunks: AsyncIterator[bytes]) -> bytes:
    """The first chunks of a body: enough to tell ``data:`` from ``{`` past
    leading whitespace, or all of it if shorter; the rest stays in ``chunks``."""
    head = b""
    async for chunk in chunks:
        head += chunk
        if len(head.lstrip()) >= 5:
            break
    return head


async def _prepend(head: bytes, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``head``, then the rest of ``chunks``."""
    if head:
        yield head
    async for chunk in chunks:
        yield chunk


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
            chunks = response.aiter_bytes()
            if response.headers.get("content-type", "").startswith("application/json"):
                head = await _head(chunks)
                if not head.lstrip().startswith(b"data:"):  # a whole JSON answer
                    body = head + b"".join([chunk async for chunk in chunks])
                    for event in parser.feed_completion(body.decode("utf-8", "replace")):
                        yield event
                    return
                chunks = _prepend(head, chunks)  # an SSE stream mislabelled as JSON
            batches = iter_sse_data(chunks)
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
