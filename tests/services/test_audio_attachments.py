"""An audio file attached to a message (a voice memo, a recorded meeting) reaches
the model as what was said in it: the speech-to-text model of the loopback
server writes it down once, when attached; the transcript is kept with the
attachment, so a regeneration reads it from there without asking again; the
file itself is stored like any other. Without a model, or with a failing
server, the file is refused with the reason and nothing is kept."""

from __future__ import annotations

import email.parser
import email.policy
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import ConfigError, MiraError
from mira_desktop.core.events import Completed
from mira_desktop.core.media_keys import TRANSCRIPTION_MODEL_KEY
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.regenerate import RegenerateRequest
from mira_desktop.services.voice_clip import wav_bytes
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error, openai_stream

from .conftest import CHAT

STT = "/v1/audio/transcriptions"
SAID = "Buy oat milk, call the plumber about the kitchen tap, and book the dentist."


@pytest.fixture
def memo(tmp_path: Path) -> Path:
    path = tmp_path / "memo.wav"
    path.write_bytes(wav_bytes(bytes(range(256)) * 125, 16_000, 1))
    return path


@pytest.fixture
async def stt(services: Services, loop_provider: str) -> None:
    await services.settings.set(TRANSCRIPTION_MODEL_KEY, {"provider": loop_provider, "model": "w1"})


async def answered(loopback: LoopbackServer, events: Any) -> Completed:
    loopback.enqueue(CHAT, openai_stream(["Noted."]))
    final = [event async for event in events][-1]
    assert isinstance(final, Completed), final
    return final


async def sent_memo(
    services: Services, loopback: LoopbackServer, provider: str, memo: Path
) -> Completed:
    """``memo`` attached (written down as SAID) and sent with a question."""
    loopback.enqueue(STT, json_reply({"text": SAID}))
    prepared = await services.attachments.prepare(memo)
    request = SendRequest("Summarise", provider=provider, model="m", attachments=(prepared,))
    return await answered(loopback, services.chat.send(request))


def requests_to(loopback: LoopbackServer, path: str) -> list[Any]:
    return [r for r in loopback.requests if r.path == path]


async def test_an_audio_file_is_sent_as_its_transcript_and_not_heard_twice(
    services: Services, loopback: LoopbackServer, loop_provider: str, stt: None, memo: Path
) -> None:
    loopback.enqueue(STT, json_reply({"text": f"  {SAID}\n"}))
    prepared = await services.attachments.prepare(memo)
    assert prepared.document.kind == "audio" and prepared.document.text == SAID
    assert prepared.attachment.mime == "audio/wav" and not prepared.is_image
    assert prepared.attachment.info["transcript"] == SAID
    [upload] = requests_to(loopback, STT)
    head = f"Content-Type: {upload.headers['content-type']}\r\n\r\n".encode()
    form = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + upload.body)
    files = [p for p in form.iter_parts() if p.get_filename()]
    assert [p.get_filename() for p in files] == ["memo.wav"]
    assert files[0].get_payload(decode=True) == memo.read_bytes()

    request = SendRequest(
        "What do I need to do?", provider=loop_provider, model="m", attachments=(prepared,)
    )
    first = await answered(loopback, services.chat.send(request))
    content = loopback.requests[-1].json["messages"][-1]["content"]
    assert content.startswith(
        "[Attached file: memo.wav — audio recording, written down by a speech-to-text model]"
    )
    assert SAID in content and content.endswith("What do I need to do?")
    assert services.media.path(prepared.sha256).read_bytes() == memo.read_bytes()

    assert first.thread_id is not None
    branch = await services.conversation.active_branch(first.thread_id)
    await answered(
        loopback, services.chat.regenerate(RegenerateRequest(first.thread_id, branch[1].id))
    )
    again = loopback.requests[-1].json["messages"][-1]["content"]
    assert SAID in again and again == content
    assert len(requests_to(loopback, STT)) == 1  # read from the attachment, not heard again


async def test_the_transcript_survives_a_restart(
    services: Services,
    loopback: LoopbackServer,
    loop_provider: str,
    stt: None,
    memo: Path,
    data_dir: Path,
) -> None:
    first = await sent_memo(services, loopback, loop_provider, memo)
    reopened = build_services(data_dir)  # another process's view: read from the file
    try:
        assert first.thread_id is not None
        branch = await reopened.conversation.active_branch(first.thread_id)
        [stored] = (await reopened.attachments.attachments([branch[0].id]))[branch[0].id]
        document = await reopened.attachments.load_document(stored)
        assert document.kind == "audio" and document.text == SAID
    finally:
        await reopened.aclose()


async def test_without_a_speech_to_text_model_the_file_is_refused(
    services: Services, loopback: LoopbackServer, loop_provider: str, memo: Path
) -> None:
    with pytest.raises(ConfigError, match="No speech-to-text model is chosen"):
        await services.attachments.prepare(memo)
    assert loopback.requests == []
    assert not any(p.is_file() for p in (services.data_dir / "media").rglob("*"))


async def test_a_failing_server_or_silence_refuses_the_file_with_the_reason(
    services: Services, loopback: LoopbackServer, loop_provider: str, stt: None, memo: Path
) -> None:
    loopback.enqueue(STT, openai_json_error(401, "Incorrect API key provided"))
    with pytest.raises(MiraError) as refused:
        await services.attachments.prepare(memo)
    assert refused.value.code == "authentication"
    loopback.enqueue(STT, json_reply({"text": "   "}))
    with pytest.raises(MiraError, match="Nothing was heard in the recording"):
        await services.attachments.prepare(memo)
    assert not any(p.is_file() for p in (services.data_dir / "media").rglob("*"))


async def test_the_attachment_limit_applies_before_anything_is_sent(
    services: Services, loopback: LoopbackServer, loop_provider: str, stt: None, tmp_path: Path
) -> None:
    await services.settings.set("attachments.max_mb", 1)
    long_memo = tmp_path / "meeting.mp3"
    long_memo.write_bytes(b"\xff\xfb" * (600 * 1024))
    with pytest.raises(MiraError, match=r"meeting\.mp3"):
        await services.attachments.prepare(long_memo)
    assert loopback.requests == []


async def test_a_zip_export_carries_the_transcript_into_another_library(
    services: Services,
    loopback: LoopbackServer,
    loop_provider: str,
    stt: None,
    memo: Path,
    tmp_path: Path,
) -> None:
    first = await sent_memo(services, loopback, loop_provider, memo)
    assert first.thread_id is not None
    document = await services.exports.thread_document(first.thread_id)
    assert document["messages"][0]["attachments"][0]["transcript"] == SAID
    target = tmp_path / "move.zip"
    await services.exports.export_zip([first.thread_id], target, inner="json")
    other = build_services(tmp_path / "other")  # no speech-to-text model there
    try:
        report = await other.imports.import_file(target)
        (imported,) = report.imported
        user = (await other.conversation.active_branch(imported.id))[0]
        [stored] = (await other.attachments.attachments([user.id]))[user.id]
        read = await other.attachments.load_document(stored)
        assert read.kind == "audio" and read.text == SAID
    finally:
        await other.aclose()
    assert len(requests_to(loopback, STT)) == 1


async def test_an_audio_file_without_its_transcript_is_written_down_again(
    services: Services, loopback: LoopbackServer, loop_provider: str, stt: None, memo: Path
) -> None:
    first = await sent_memo(services, loopback, loop_provider, memo)
    assert first.thread_id is not None
    user = (await services.conversation.active_branch(first.thread_id))[0]
    # as an export from before transcripts were kept would have left it
    await services.store.worker.run(
        lambda db: db.execute(
            "UPDATE message_parts SET data_json = '{\"size\": 1}' WHERE message_id = ?", (user.id,)
        )
    )
    [stored] = (await services.attachments.attachments([user.id]))[user.id]
    loopback.enqueue(STT, json_reply({"text": "Heard again."}))
    read = await services.attachments.load_document(stored)
    assert read.kind == "audio" and read.text == "Heard again."
    assert len(requests_to(loopback, STT)) == 2


async def test_the_same_recording_attached_again_is_not_written_down_twice(
    services: Services, loopback: LoopbackServer, loop_provider: str, stt: None, memo: Path
) -> None:
    await sent_memo(services, loopback, loop_provider, memo)
    copy = memo.with_name("memo (copy).wav")  # the same bytes under another name
    copy.write_bytes(memo.read_bytes())
    again = await services.attachments.prepare(copy)
    assert again.document.text == SAID and again.attachment.info["transcript"] == SAID
    assert len(requests_to(loopback, STT)) == 1
