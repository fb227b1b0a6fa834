"""A recorded lecture or meeting in a knowledge base: an audio file named on its
own is indexed as what is said in it (the loopback server's speech-to-text
endpoint writes it down, asked from the ingestion's worker thread through the
event loop), found by keyword search, and not sent again while it is
unchanged. Audio found in a folder is skipped with the reason (a music
collection is not sent off to be transcribed); without a speech-to-text
model the file fails with the reason and the others are still indexed."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.media_keys import TRANSCRIPTION_MODEL_KEY
from mira_desktop.services.voice_clip import wav_bytes
from tests.support.loopback import LoopbackServer, json_reply
from tests.support.replies import Hang, Reply

STT = "/v1/audio/transcriptions"
LECTURE = (
    "Today we cover photosynthesis: chlorophyll absorbs light, and the Calvin cycle "
    "fixes carbon dioxide into sugar inside the chloroplast stroma."
)


def audio(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(wav_bytes(bytes(range(256)) * 64, 16_000, 1))
    return path


@pytest.fixture
async def stt(services: Services, loopback: LoopbackServer) -> None:
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1")
    await services.settings.set(TRANSCRIPTION_MODEL_KEY, {"provider": "loop", "model": "w1"})


def uploads(loopback: LoopbackServer) -> int:
    return sum(1 for r in loopback.requests if r.path == STT)


async def test_a_named_recording_is_indexed_as_what_is_said_in_it(
    services: Services, loopback: LoopbackServer, stt: None, tmp_path: Path
) -> None:
    lecture = audio(tmp_path / "lecture 3.m4a")
    kb = await services.knowledge.create("Biology")
    loopback.enqueue(STT, json_reply({"text": LECTURE}))
    report = await services.knowledge.add(kb.id, [lecture])
    assert report.added == 1 and not report.failed
    result = await services.knowledge.search(kb.id, "Calvin cycle chloroplast")
    assert result.hits and result.hits[0].chunk.document_name == "lecture 3.m4a"
    assert "chlorophyll absorbs light" in result.hits[0].chunk.text
    again = await services.knowledge.add(kb.id, [lecture])
    assert again.unchanged == 1 and uploads(loopback) == 1  # not heard twice
    os.utime(lecture, (1_700_000_000, 1_700_000_000))  # touched (synced, copied back)
    touched = await services.knowledge.add(kb.id, [lecture])
    assert touched.unchanged == 1 and uploads(loopback) == 1  # the same bytes: not sent again
    full = await services.knowledge.reindex(kb.id, full=True)
    assert not full.failed and uploads(loopback) == 1
    assert (await services.knowledge.search(kb.id, "Calvin cycle")).hits  # passages kept


async def test_audio_in_a_folder_is_skipped_with_the_reason(
    services: Services, loopback: LoopbackServer, stt: None, tmp_path: Path
) -> None:
    folder = tmp_path / "course"
    audio(folder / "song.mp3")
    (folder / "notes.md").write_text("# Notes\nThe stroma holds the Calvin cycle.\n")
    kb = await services.knowledge.create("Course")
    report = await services.knowledge.add(kb.id, [folder])
    assert report.added == 1 and uploads(loopback) == 0
    assert [(Path(p).name, why) for p, why in report.skipped] == [
        ("song.mp3", "audio: add the file itself to have it written down")
    ]


async def test_without_a_model_the_recording_fails_and_the_rest_is_indexed(
    services: Services, loopback: LoopbackServer, tmp_path: Path
) -> None:
    lecture = audio(tmp_path / "lecture.wav")
    notes = tmp_path / "notes.txt"
    notes.write_text("Chlorophyll absorbs red and blue light.")
    kb = await services.knowledge.create("Biology")
    report = await services.knowledge.add(kb.id, [lecture, notes])
    assert report.added == 1
    [failure] = report.failed
    assert Path(failure.path).name == "lecture.wav"
    assert failure.error == "No speech-to-text model is chosen."
    assert failure.cause is not None and failure.cause.code == "config"
    assert loopback.requests == []


async def test_a_cancel_stops_a_transcription_under_way(
    services: Services, loopback: LoopbackServer, stt: None, tmp_path: Path
) -> None:
    lecture = audio(tmp_path / "long lecture.wav")
    kb = await services.knowledge.create("Biology")
    loopback.enqueue(STT, Reply(chunks=[Hang()], framing="chunked"))
    cancel = threading.Event()
    adding = asyncio.ensure_future(services.knowledge.add(kb.id, [lecture], cancel=cancel))
    await asyncio.to_thread(loopback.wait_for_requests, 1)
    cancel.set()
    report = await asyncio.wait_for(adding, 5)
    assert report.cancelled and report.added == 0
    assert await asyncio.to_thread(loopback.wait_for_disconnect, 5.0)  # the upload dropped
    assert (await services.knowledge.search(kb.id, "photosynthesis")).hits == ()


async def test_a_recording_past_the_endpoints_limit_is_refused_before_anything_is_sent(
    services: Services, loopback: LoopbackServer, stt: None, tmp_path: Path
) -> None:
    meeting = tmp_path / "all-hands.m4a"
    with meeting.open("wb") as out:
        out.truncate(26 * 1024 * 1024)  # sparse: nothing is written
    kb = await services.knowledge.create("Meetings")
    report = await services.knowledge.add(kb.id, [meeting])
    [failure] = report.failed
    assert "speech-to-text takes at most 25 MB" in failure.error and uploads(loopback) == 0
