"""Image generation over real HTTP (PRODUCT.md §10): OpenAI-compatible
``/images/generations`` asking for base64, a server that answers with a link,
and typed errors for refusals and malformed answers."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from mira_desktop.core.errors import BadRequestError, MalformedStreamError, ModelNotFoundError
from mira_desktop.core.ports import ImageProvider
from mira_desktop.providers.anthropic import AnthropicProvider
from mira_desktop.providers.ollama import OllamaProvider
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error
from tests.support.replies import Reply

IMAGES = "/v1/images/generations"


def png(width: int = 64, height: int = 48, colour: str = "teal") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


async def test_an_image_is_asked_for_as_base64_and_returned_as_bytes(
    loopback: LoopbackServer,
) -> None:
    picture = png()
    answer = {"data": [{"b64_json": base64.b64encode(picture).decode(), "revised_prompt": "A cat"}]}
    loopback.enqueue(IMAGES, json_reply(answer))
    async with OpenAIProvider("o", loopback.url + "/v1", "sk-i") as provider:
        made = await provider.generate_image("a cat on a mat", "gpt-image-1")
    assert made.data == picture and made.revised_prompt == "A cat"
    [request] = loopback.requests
    assert request.json == {
        "model": "gpt-image-1",
        "prompt": "a cat on a mat",
        "n": 1,
        "size": "1024x1024",
        "response_format": "b64_json",
    }
    assert request.headers["authorization"] == "Bearer sk-i"


async def test_a_server_that_links_to_its_image_has_it_fetched(loopback: LoopbackServer) -> None:
    picture = png(colour="orange")
    loopback.enqueue(IMAGES, json_reply({"data": [{"url": loopback.url + "/files/1.png"}]}))
    loopback.enqueue(
        "/files/1.png", Reply(status=200, headers={"content-type": "image/png"}, chunks=[picture])
    )
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        made = await provider.generate_image("an orange", "dall-e-3")
    assert made.data == picture and made.revised_prompt is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"data": []}, "The server sent no image"),
        ({"images": ["x"]}, "The server sent no image"),
        ({"data": [{"b64_json": "not*base64"}]}, "not valid base64"),
        ({"data": [{"url": "ftp://x"}]}, "The server sent no image"),
    ],
)
async def test_malformed_answers_are_typed(
    loopback: LoopbackServer, body: object, message: str
) -> None:
    loopback.enqueue(IMAGES, json_reply(body))
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        with pytest.raises(MalformedStreamError, match=message):
            await provider.generate_image("x", "m")


async def test_refusals_are_typed(loopback: LoopbackServer) -> None:
    loopback.enqueue(IMAGES, openai_json_error(404, "The model 'nope' does not exist"))
    loopback.enqueue(
        IMAGES, openai_json_error(400, "Your prompt was rejected by the safety system")
    )
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        with pytest.raises(ModelNotFoundError):
            await provider.generate_image("x", "nope")
        with pytest.raises(BadRequestError, match="safety system"):
            await provider.generate_image("x", "m")


async def test_only_openai_compatible_servers_make_images() -> None:
    openai = OpenAIProvider("o", "http://127.0.0.1:9/v1")
    ollama = OllamaProvider("l", "http://127.0.0.1:9")
    anthropic = AnthropicProvider("a", "http://127.0.0.1:9")
    assert isinstance(openai, ImageProvider)
    assert not isinstance(ollama, ImageProvider) and not isinstance(anthropic, ImageProvider)
    for provider in (openai, ollama, anthropic):
        await provider.aclose()
