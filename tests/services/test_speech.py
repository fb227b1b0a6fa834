"""Answers read aloud (PRODUCT.md §10): a thread's TTS switch, the system voice
(eSpeak NG through pyttsx3, for real), the WAV kept in the media store as the
answer's part, failures recorded without touching the answer, re-reading, and
what deleting the thread releases. Chat runs talk HTTP to the loopback server."""

from __future__ import annotations

import io
import wave
import zipfile
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.events import ChatEvent, Completed, Stopped
from mira_desktop.core.models import Message
from mira_desktop.core.speech import SpeechInfo
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.speech import SpeechService
from mira_desktop.services.speech_engine import SystemVoice
from tests.support.loopback import LoopbackServer, openai_stream

from .conftest import CHAT, text_then_hang

ANSWER = (
    "## Steps\n\nFirst, **boil** the water. Then add the pasta [1].\n\n"
    "```python\nprint('never read aloud')\n```\n\nServe it hot."
)


async def ask(services: Services, request: SendRequest) -> list[ChatEvent]:
    return [event async for event in services.chat.send(request)]


async def answered(
    services: Services,
    loopback: LoopbackServer,
    provider: str,
    *,
    tts: bool | None,
    text: str = ANSWER,
) -> Completed:
    loopback.enqueue(CHAT, openai_stream([text]))
    events = await ask(services, SendRequest("How?", provider=provider, model="m", tts=tts))
    assert isinstance(events[-1], Completed)
    return events[-1]


async def speech_parts(services: Services, message_id: str) -> list[dict[str, object]]:
    return await services.store.worker.run(
        lambda db: list(
            db.query(
                "SELECT kind, mime, name, media_sha256 FROM message_parts WHERE message_id = ?",
                [message_id],
            )
        )
    )


def wav_seconds(data: bytes) -> float:
    with wave.open(io.BytesIO(data)) as w:
        return w.getnframes() / w.getframerate()


async def test_a_thread_with_its_switch_on_has_each_answer_read_aloud(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    done = await answered(services, loopback, loop_provider, tts=True)
    assert done.thread_id and done.message_id
    thread = await services.threads.get_thread(done.thread_id)
    assert thread.tts_enabled
    heard: list[Message] = []
    services.speech.add_listener(heard.append)
    await services.speech.drain()
    message = await services.store.get_message(done.message_id)
    info = SpeechInfo.from_data(message.data)
    assert info is not None and info.status == "ready", message.data
    assert message.text == ANSWER  # the answer itself is untouched
    assert info.voice and info.duration_ms > 1000 and info.name.endswith(".wav")
    assert "never read aloud" not in ANSWER.split("```")[0] and info.chars < len(ANSWER)
    audio = await services.media.read(info.sha256)
    assert len(audio) == info.size and wav_seconds(audio) == pytest.approx(
        info.duration_ms / 1000, abs=0.01
    )
    parts = await speech_parts(services, done.message_id)
    assert [(p["kind"], p["mime"], p["media_sha256"]) for p in parts] == [
        ("file", "audio/wav", info.sha256)
    ]
    assert await services.media.ref_count(info.sha256) == 1
    assert [SpeechInfo.from_data(m.data).status for m in heard][-1:] == ["ready"]  # type: ignore[union-attr]
    # the next answer of the thread is read aloud too (the switch stays on)
    loopback.enqueue(CHAT, openai_stream(["A second answer, short."]))
    events = await ask(services, SendRequest("More?", thread_id=done.thread_id))
    assert isinstance(events[-1], Completed) and events[-1].message_id
    await services.speech.drain()
    second = await services.store.get_message(events[-1].message_id)
    assert SpeechInfo.from_data(second.data).status == "ready"  # type: ignore[union-attr]


async def test_nothing_is_read_aloud_with_the_switch_off_or_for_a_stopped_answer(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    done = await answered(services, loopback, loop_provider, tts=None)
    assert done.message_id and done.thread_id
    assert "speech" not in services.built  # not even built: nothing to read
    assert SpeechInfo.from_data((await services.store.get_message(done.message_id)).data) is None
    await services.threads.set_tts(done.thread_id, True)
    loopback.enqueue(CHAT, text_then_hang("half an ans"))
    events: list[ChatEvent] = []
    async for event in services.chat.send(SendRequest("Again", thread_id=done.thread_id)):
        events.append(event)
        if len(events) == 3:
            services.chat.stop(done.thread_id)
    stopped = events[-1]
    assert isinstance(stopped, Stopped) and stopped.message_id
    await services.speech.drain()
    message = await services.store.get_message(stopped.message_id)
    assert message.text == "half an ans" and SpeechInfo.from_data(message.data) is None


async def test_any_answer_can_be_read_aloud_again_and_replaces_its_audio(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    done = await answered(services, loopback, loop_provider, tts=False)
    assert done.message_id and done.thread_id
    first = SpeechInfo.from_data((await services.speech.speak(done.message_id)).data)
    assert first is not None and first.status == "ready"
    again = SpeechInfo.from_data((await services.speech.speak(done.message_id)).data)
    assert again is not None and again.status == "ready"
    parts = await speech_parts(services, done.message_id)
    assert [p["media_sha256"] for p in parts] == [again.sha256]  # replaced, not added
    assert await services.media.ref_count(again.sha256) == 1
    if again.sha256 != first.sha256:  # eSpeak's output varies a little from run to run
        assert await services.media.ref_count(first.sha256) == 0
    branch = await services.store.active_branch(done.thread_id)
    with pytest.raises(ConfigError, match="Only an answer"):
        await services.speech.speak(branch[0].id)  # the question


async def test_a_voice_that_fails_leaves_the_answer_and_says_why(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    done = await answered(services, loopback, loop_provider, tts=False)
    assert done.message_id
    broken = SpeechService(services.store, services.media, SystemVoice("no_such_driver"))
    heard: list[Message] = []
    broken.add_listener(heard.append)
    try:
        message = await broken.speak(done.message_id)
    finally:
        await broken.aclose()
    info = SpeechInfo.from_data(message.data)
    assert info is not None and info.status == "failed" and info.error
    assert info.error["code"] == "speech" and "no speech engine" in info.error["message"]
    assert "eSpeak NG" in info.error["hint"]
    stored = await services.store.get_message(done.message_id)
    assert stored.text == ANSWER and SpeechInfo.from_data(stored.data) == info
    assert await speech_parts(services, done.message_id) == []
    assert [SpeechInfo.from_data(m.data).status for m in heard] == ["pending", "failed"]  # type: ignore[union-attr]


async def test_reading_aloud_again_that_fails_keeps_the_audio(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    done = await answered(services, loopback, loop_provider, tts=False)
    assert done.message_id
    first = SpeechInfo.from_data((await services.speech.speak(done.message_id)).data)
    assert first is not None and first.status == "ready"
    broken = SpeechService(services.store, services.media, SystemVoice("no_such_driver"))
    try:
        message = await broken.speak(done.message_id)
    finally:
        await broken.aclose()
    kept = SpeechInfo.from_data(message.data)
    assert kept is not None and kept.retry_failed and kept.error
    assert (kept.sha256, kept.duration_ms) == (first.sha256, first.duration_ms)
    assert "no speech engine" in kept.error["message"]
    assert [p["media_sha256"] for p in await speech_parts(services, done.message_id)] == [
        first.sha256
    ]
    assert await services.media.ref_count(first.sha256) == 1


async def test_an_answer_with_nothing_to_say_fails_in_words(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    done = await answered(services, loopback, loop_provider, tts=True, text="```\nls -la\n```")
    assert done.message_id
    await services.speech.drain()
    info = SpeechInfo.from_data((await services.store.get_message(done.message_id)).data)
    assert info is not None and info.status == "failed"
    assert info.error and info.error["message"] == "This answer has nothing to read aloud."


async def test_the_audio_goes_with_its_thread_and_into_a_zip_export(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    done = await answered(services, loopback, loop_provider, tts=True)
    assert done.message_id and done.thread_id
    await services.speech.drain()
    info = SpeechInfo.from_data((await services.store.get_message(done.message_id)).data)
    assert info is not None and info.status == "ready"
    target = tmp_path / "out.zip"
    await services.exports.export_zip([done.thread_id], target, inner="md")
    with zipfile.ZipFile(target) as archive:
        entry = f"attachments/{info.sha256[:12]}-{info.name}"
        assert entry in archive.namelist()
        assert archive.read(entry) == await services.media.read(info.sha256)
    await services.history.trash(done.thread_id)
    await services.history.purge(done.thread_id)
    # nothing else uses it: its row and file go with the purge, not at a later start-up
    assert await services.media.ref_count(info.sha256) is None
    assert not services.media.path(info.sha256).exists()


async def test_a_long_answer_is_spoken_whole_and_a_very_long_one_in_part(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    """pyttsx3 loses texts over ~30 words unless the engine's end is awaited
    (tech-notes §6): 150 words are spoken whole."""
    words = " ".join(f"word{n % 10} is here." for n in range(50))  # 150 words
    done = await answered(services, loopback, loop_provider, tts=False, text=words)
    assert done.message_id
    info = SpeechInfo.from_data((await services.speech.speak(done.message_id)).data)
    assert info is not None and info.status == "ready" and not info.truncated
    assert info.duration_ms > 20_000
    short = SpeechService(services.store, services.media, limit=200)
    try:
        cut = SpeechInfo.from_data((await short.speak(done.message_id)).data)
    finally:
        await short.aclose()
    assert (
        cut is not None
        and cut.truncated
        and cut.chars <= 200
        and cut.duration_ms < info.duration_ms
    )


def test_the_system_voice_speaks_english_and_chinese_without_printing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    voice = SystemVoice()
    english = voice.synthesize("Boil the water, then add the pasta.", "en")
    chinese = voice.synthesize("先把水烧开，再放入面条。", "zh")
    assert english.voice != chinese.voice and "cmn" in chinese.voice
    for audio in (english, chinese):
        assert audio.wav[:4] == b"RIFF" and wav_seconds(audio.wav) > 1.0
    assert capfd.readouterr().out == ""  # eSpeak's "Audio saved to …" stays out of stdout


def test_two_voices_on_two_threads_take_turns() -> None:
    """eSpeak is one engine per process: two voices at once (two services, the
    CLI beside a window's thread) garbled each other and could hang for ever."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [
        ("Boil the water, then add the pasta. " * 6, "en"),
        ("先把水烧开，再放入面条。" * 4, "zh"),
    ]
    expected = [SystemVoice().synthesize(t, lang).duration_ms for t, lang in texts]
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(SystemVoice().synthesize, t, lang) for t, lang in texts * 3]
        results = [f.result(timeout=30) for f in futures]
    for audio, wanted in zip(results, expected * 3, strict=True):
        assert wav_seconds(audio.wav) * 1000 == pytest.approx(wanted, rel=0.05)
