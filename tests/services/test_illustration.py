"""Illustrated answers (PRODUCT.md §10): a thread with its image switch on, a
role and no knowledge base has each completed answer drawn by the image model
chosen in Settings; the picture is checked and kept as the answer's image
part; a refusal, no model or a provider without images leave the answer as it
is and say why. The model server is the loopback server."""

from __future__ import annotations

import base64
import io
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import NotFoundError
from mira_desktop.core.events import Completed
from mira_desktop.core.illustration import ImageInfo
from mira_desktop.core.models import Role
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.illustration import image_prompt
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error, openai_stream

from .conftest import CHAT

IMAGES = "/v1/images/generations"
ANSWER = "*The knight raises his lantern.* The cave glitters with **blue crystals** [1].\n\n```\nx = 1\n```"


def png(colour: str = "navy", size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def image_reply(data: bytes) -> object:
    return json_reply({"data": [{"b64_json": base64.b64encode(data).decode()}]})


@pytest.fixture
async def storyteller(services: Services, loop_provider: str) -> str:
    role = await services.roles.create("Storyteller", scenario="A fantasy quest in the mountains")
    await services.images.set_image_model(loop_provider, "pic-1")
    return role.id


async def answered(
    services: Services, loopback: LoopbackServer, provider: str, **request: object
) -> Completed:
    loopback.enqueue(CHAT, openai_stream([ANSWER]))
    sent = SendRequest("Go on", provider=provider, model="m", **request)  # type: ignore[arg-type]
    events = [e async for e in services.chat.send(sent)]
    assert isinstance(events[-1], Completed) and events[-1].message_id
    return events[-1]


async def image_of(services: Services, message_id: str) -> ImageInfo | None:
    return ImageInfo.from_data((await services.store.get_message(message_id)).data)


async def test_an_answer_of_a_thread_with_a_role_is_illustrated(
    services: Services,
    loopback: LoopbackServer,
    loop_provider: str,
    storyteller: str,
    tmp_path: Path,
) -> None:
    picture = png()
    loopback.enqueue(IMAGES, image_reply(picture))
    done = await answered(services, loopback, loop_provider, role_id=storyteller, image=True)
    assert done.message_id and done.thread_id
    await services.images.drain()
    info = await image_of(services, done.message_id)
    assert info is not None and info.status == "ready", info
    assert (info.mime, info.width, info.height, info.model) == ("image/png", 40, 30, "pic-1")
    assert await services.media.read(info.sha256) == picture
    assert await services.media.ref_count(info.sha256) == 1
    request = loopback.requests[-1]
    assert request.path == IMAGES and request.json["model"] == "pic-1"
    prompt = request.json["prompt"]
    assert prompt == info.prompt
    assert prompt.startswith("An illustration for this reply of Storyteller (A fantasy quest")
    assert "blue crystals" in prompt and "**" not in prompt and "x = 1" not in prompt
    assert "[1]" not in prompt
    message = await services.store.get_message(done.message_id)
    assert message.text == ANSWER
    # kept like an attachment: a ZIP export carries it, deleting the thread releases it
    target = tmp_path / "out.zip"
    await services.exports.export_zip([done.thread_id], target, inner="md")
    with zipfile.ZipFile(target) as archive:
        assert archive.read(f"attachments/{info.sha256[:12]}-{info.name}") == picture
    await services.history.trash(done.thread_id)
    await services.history.purge(done.thread_id)
    # nothing else uses it: its row and file go with the purge, not at a later start-up
    assert await services.media.ref_count(info.sha256) is None
    assert not services.media.path(info.sha256).exists()


async def test_no_image_without_the_switch_a_role_or_with_a_knowledge_base(
    services: Services, loopback: LoopbackServer, loop_provider: str, storyteller: str
) -> None:
    kb = await services.knowledge.create("Notes")
    cases = [
        {"role_id": storyteller},  # switch off
        {"image": True},  # no role
    ]
    for request in cases:
        done = await answered(services, loopback, loop_provider, **request)
        assert done.message_id
        assert await image_of(services, done.message_id) is None
    loopback.enqueue(CHAT, openai_stream(["From the notes."]))
    done = await answered(services, loopback, loop_provider, role_id=storyteller, image=True)
    assert done.thread_id
    await services.knowledge.bind(done.thread_id, kb.id)
    await services.images.drain()
    requests = len([r for r in loopback.requests if r.path == IMAGES])
    events = [e async for e in services.chat.send(SendRequest("More", thread_id=done.thread_id))]
    await services.images.drain()
    assert [r for r in loopback.requests if r.path == IMAGES][requests:] == []
    assert isinstance(events[-1], Completed)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("refusal", "safety system"),
        ("no_model", "No image model is chosen."),
        ("not_an_image", "The server's image cannot be read"),
        ("ollama", '"local" cannot make images.'),
        ("dead", "Connection refused"),
    ],
)
async def test_a_failure_leaves_the_answer_and_says_why(
    services: Services,
    loopback: LoopbackServer,
    loop_provider: str,
    storyteller: str,
    setup: str,
    message: str,
) -> None:
    if setup == "refusal":
        loopback.enqueue(IMAGES, openai_json_error(400, "Rejected by the safety system"))
    elif setup == "no_model":
        await services.images.set_image_model(None, None)
    elif setup == "not_an_image":
        loopback.enqueue(
            IMAGES, json_reply({"data": [{"b64_json": base64.b64encode(b"<html>").decode()}]})
        )
    elif setup == "ollama":
        await services.providers.add_provider("local", "ollama", loopback.url)
        await services.images.set_image_model("local", "pic-1")
    else:  # a server that is not running
        await services.providers.add_provider("gone", "openai", "http://127.0.0.1:9/v1")
        await services.images.set_image_model("gone", "pic-1")
    done = await answered(services, loopback, loop_provider, role_id=storyteller, image=True)
    assert done.message_id
    await services.images.drain()
    info = await image_of(services, done.message_id)
    assert info is not None and info.status == "failed" and info.error
    assert message in info.error["message"]
    stored = await services.store.get_message(done.message_id)
    assert stored.text == ANSWER and stored.status == "complete"
    parts = await services.store.worker.run(
        lambda db: db.execute(
            "SELECT COUNT(*) FROM message_parts WHERE message_id = ?", [done.message_id]
        ).fetchone()[0]
    )
    assert parts == 0


async def test_illustrate_on_request_replaces_the_image(
    services: Services, loopback: LoopbackServer, loop_provider: str, storyteller: str
) -> None:
    done = await answered(services, loopback, loop_provider, role_id=storyteller)
    assert done.message_id
    loopback.enqueue(IMAGES, image_reply(png("red")))
    first = ImageInfo.from_data((await services.images.illustrate(done.message_id)).data)
    loopback.enqueue(IMAGES, image_reply(png("green")))
    second = ImageInfo.from_data((await services.images.illustrate(done.message_id)).data)
    assert first and second and first.sha256 != second.sha256
    assert await services.media.ref_count(first.sha256) == 0
    assert await services.media.ref_count(second.sha256) == 1


async def test_a_redraw_that_fails_keeps_the_picture_and_says_why(
    services: Services, loopback: LoopbackServer, loop_provider: str, storyteller: str
) -> None:
    done = await answered(services, loopback, loop_provider, role_id=storyteller)
    assert done.message_id
    loopback.enqueue(IMAGES, image_reply(png("red")))
    drawn = ImageInfo.from_data((await services.images.illustrate(done.message_id)).data)
    assert drawn and drawn.status == "ready" and not drawn.retry_failed
    loopback.enqueue(IMAGES, openai_json_error(400, "Rejected by the safety system"))
    again = ImageInfo.from_data((await services.images.illustrate(done.message_id)).data)
    assert again is not None and again.retry_failed and again.error
    assert "safety system" in again.error["message"]
    assert (again.status, again.sha256, again.width) == ("ready", drawn.sha256, drawn.width)
    assert await image_of(services, done.message_id) == again  # as stored
    assert await services.media.ref_count(drawn.sha256) == 1
    assert await services.media.read(drawn.sha256) == png("red")
    await services.media.collect_garbage(only=[drawn.sha256])
    assert await services.media.read(drawn.sha256) == png("red")
    # a later redraw that works replaces it and clears the error
    loopback.enqueue(IMAGES, image_reply(png("green")))
    fresh = ImageInfo.from_data((await services.images.illustrate(done.message_id)).data)
    assert fresh and fresh.status == "ready" and not fresh.retry_failed and not fresh.error
    assert await services.media.ref_count(drawn.sha256) == 0


async def test_the_image_model_must_name_a_provider(services: Services) -> None:
    with pytest.raises(NotFoundError):
        await services.images.set_image_model("nope", "pic-1")
    assert await services.images.image_model() is None


def test_the_prompt_says_who_and_where_then_the_words() -> None:
    role = Role(id="r", name="Guide", scenario="  A walk\nin Kyoto ")
    assert image_prompt("# Temple\n\nThe **gate** is red.", role) == (
        "An illustration for this reply of Guide (A walk in Kyoto): Temple\n\nThe gate is red."
    )
    assert image_prompt("Hello", None) == "An illustration of this scene: Hello"
    assert len(image_prompt("word " * 1000, role)) < 1100
