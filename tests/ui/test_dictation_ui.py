"""Voice input in the real window: the composer's microphone records (from a
played microphone: there is no sound device here), a second click sends a
real WAV file over HTTP to the loopback server's ``/audio/transcriptions``
and the words land where the cursor is. Everything that can go wrong keeps
the recording: no model chosen (Settings… opens on the right tab), a server
that fails (Try again sends the same audio; Save recording… writes it),
a stop while it is written down (the request is really dropped), silence,
a microphone that cannot open or is unplugged, Esc, the time limit."""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import io
import wave
from array import array
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox

from mira_desktop.bootstrap import Services
from mira_desktop.core.media_keys import TRANSCRIPTION_MODEL_KEY
from mira_desktop.ui.composer.voice_recorder import (
    Clip,
    Microphone,
    MicrophoneError,
    PcmFormat,
    peak_of,
)
from mira_desktop.ui.dialogs.settings_dialog import TAB_NAMES, SettingsDialog
from mira_desktop.ui.window.dictation_actions import wav_of
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error
from tests.support.microphone import SPEECH, PlayedMicrophone, silence, tone
from tests.support.qt_async import until
from tests.support.replies import Hang, Reply

STT = "/v1/audio/transcriptions"


@pytest.fixture
async def stt(services: Services) -> None:
    await services.settings.set(
        TRANSCRIPTION_MODEL_KEY, {"provider": "Local", "model": "whisper-1"}
    )


def use(window: MainWindow, microphone: PlayedMicrophone) -> PlayedMicrophone:
    window.dictation_actions.make_input = lambda: microphone
    return microphone


def uploaded(request: Any) -> tuple[dict[str, str], bytes]:
    """The form fields and the audio file of a recorded multipart request."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.body)
    fields: dict[str, str] = {}
    audio = b""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name == "file":
            audio = part.get_payload(decode=True)
            fields["filename"] = part.get_filename()
            fields["type"] = part.get_content_type()
        else:
            fields[name] = part.get_content().strip()
    return fields, audio


def frames(wav: bytes) -> tuple[tuple[int, int, int], bytes]:
    with wave.open(io.BytesIO(wav)) as reader:
        shape = (reader.getframerate(), reader.getnchannels(), reader.getsampwidth())
        return shape, reader.readframes(reader.getnframes())


async def record(window: MainWindow, seconds: float) -> None:
    """Click the microphone and let it record ``seconds`` of audio."""
    window.composer.mic_button.click()
    actions = window.dictation_actions
    await until(lambda: actions.state == "recording")
    await until(lambda: actions.recorder is not None and actions.recorder.seconds >= seconds)


async def test_dictated_words_are_written_where_the_cursor_is(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    composer = window.composer
    composer.set_text("Please summarise")
    spoken = tone(0.6)
    microphone = use(window, PlayedMicrophone(spoken))
    await record(window, 0.6)
    assert composer.mic_state() == "recording"
    assert (
        composer.dictation_bar.isVisible()
        and "Listening… 0:00" in composer.dictation_bar.label.text()
    )
    loopback.enqueue(STT, json_reply({"text": "  the meeting notes.  "}))
    composer.mic_button.click()
    assert window.dictation_actions.state == "transcribing"
    await until(lambda: window.dictation_actions.state == "idle")
    assert composer.text() == "Please summarise the meeting notes."
    assert composer.mic_state() == "idle" and not composer.dictation_bar.isVisible()
    assert microphone.closed == 1 and window.dictation_actions.clip is None
    [request] = loopback.requests
    fields, audio = uploaded(request)
    assert fields == {
        "filename": "dictation.wav",
        "type": "audio/wav",
        "model": "whisper-1",
        "response_format": "json",
    }
    shape, pcm = frames(audio)
    assert shape == (16_000, 1, 2) and pcm.startswith(spoken)


@pytest.mark.parametrize(
    ("before", "said", "after"),
    [
        ("你好", "今天天气很好", "你好今天天气很好"),  # Chinese joins without a space
        ("Hello\n", "world", "Hello\nworld"),  # a new line needs none
        ("Thanks 👍", "see you", "Thanks 👍 see you"),  # an emoji is not Chinese
        ("안녕하세요", "반갑습니다", "안녕하세요 반갑습니다"),  # Korean spaces its words
        ("Note:", "buy milk", "Note: buy milk"),
    ],
)
async def test_dictated_words_join_the_text_before_them(
    window: MainWindow, before: str, said: str, after: str
) -> None:
    window.composer.set_text(before)
    window.composer.insert_dictation(said)
    assert window.composer.text() == after


async def test_dictated_words_replace_a_selection(window: MainWindow) -> None:
    composer = window.composer
    composer.set_text("a b c")
    cursor = composer.editor.textCursor()
    cursor.setPosition(2)
    cursor.setPosition(3, cursor.MoveMode.KeepAnchor)
    composer.editor.setTextCursor(cursor)
    composer.insert_dictation("bee")
    assert composer.text() == "a bee c"


async def test_without_a_model_nothing_is_recorded_and_settings_opens_on_its_tab(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    microphone = use(window, PlayedMicrophone(tone(1.0)))
    window.composer.mic_button.click()
    bar = window.composer.dictation_bar
    await until(bar.isVisible)
    assert "speech-to-text model" in bar.label.text() and bar.label.property("status") == "error"
    assert microphone.opened == 0 and window.dictation_actions.state == "idle"
    assert bar.action_button.text() == "Settings…" and not bar.save_button.isVisible()
    bar.action_button.click()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.tabs.currentIndex() == TAB_NAMES.index("general")
    assert not bar.isVisible()
    dialog.close()
    assert loopback.requests == []


async def test_a_failed_transcription_keeps_the_recording_for_try_again_and_save(
    window: MainWindow,
    loopback: LoopbackServer,
    stt: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spoken = tone(0.5)
    use(window, PlayedMicrophone(spoken))
    await record(window, 0.5)
    loopback.enqueue(STT, openai_json_error(401, "Incorrect API key provided"))
    window.composer.mic_button.click()
    bar = window.composer.dictation_bar
    await until(lambda: window.dictation_actions.state == "idle" and bar.isVisible())
    assert bar.label.property("status") == "error" and bar.action_button.text() == "Try again"
    assert bar.save_button.isVisible() and window.composer.text() == ""
    target = tmp_path / "kept.wav"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    bar.save_button.click()
    await until(target.exists)
    await until(lambda: "saved" in bar.label.text())
    loopback.enqueue(STT, json_reply({"text": "Second time lucky."}))
    bar.action_button.click()
    await until(lambda: window.composer.text() == "Second time lucky.")
    first, second = loopback.requests
    assert uploaded(first)[1] == uploaded(second)[1] == target.read_bytes()
    assert frames(target.read_bytes())[1].startswith(spoken)
    assert not bar.isVisible()


async def test_a_stop_while_writing_down_drops_the_request_and_keeps_the_recording(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    use(window, PlayedMicrophone(tone(0.5)))
    await record(window, 0.5)
    loopback.enqueue(STT, Reply(chunks=[Hang()], framing="chunked"))
    window.composer.mic_button.click()
    await until(lambda: len(loopback.requests) == 1)
    bar = window.composer.dictation_bar
    assert bar.action_button.text() == "Stop" and not bar.close_button.isVisible()
    bar.action_button.click()
    assert window.dictation_actions.state == "idle" and window.composer.mic_state() == "idle"
    assert "Stopped" in bar.label.text() and bar.action_button.text() == "Try again"
    await until(lambda: loopback.disconnects >= 1)
    assert window.dictation_actions.clip is not None
    bar.close_button.click()
    assert window.dictation_actions.clip is None and not bar.isVisible()


async def test_silence_is_not_sent_without_asking(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    use(window, PlayedMicrophone(silence(1.0)))
    await record(window, 0.5)
    window.composer.mic_button.click()
    bar = window.composer.dictation_bar
    assert "silence" in bar.label.text() and bar.action_button.text() == "Write it down anyway"
    assert window.dictation_actions.state == "idle" and loopback.requests == []
    loopback.enqueue(STT, json_reply({"text": "(quiet)"}))
    bar.action_button.click()
    await until(lambda: window.composer.text() == "(quiet)")


async def test_esc_discards_a_recording_and_a_double_click_records_nothing(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    composer = window.composer
    microphone = use(window, PlayedMicrophone(tone(1.0)))
    await record(window, 0.3)
    composer.editor.setFocus()
    QTest.keyClick(composer.editor, Qt.Key.Key_Escape)
    assert window.dictation_actions.state == "idle" and not composer.dictation_bar.isVisible()
    assert window.dictation_actions.clip is None and microphone.closed == 1
    composer.mic_button.click()
    composer.mic_button.click()  # a double click: the second gives up starting
    await asyncio.sleep(0.2)
    assert window.dictation_actions.state == "idle" and microphone.opened == 1
    composer.mic_button.click()
    await until(lambda: window.dictation_actions.state == "recording")
    composer.mic_button.click()  # at once: less than a third of a second
    assert "too short" in composer.dictation_bar.label.text()
    assert loopback.requests == []


async def test_a_kept_recording_is_not_replaced_by_a_new_one(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    microphone = use(window, PlayedMicrophone(tone(0.5)))
    await record(window, 0.5)
    loopback.enqueue(STT, openai_json_error(500, "overloaded", type="server_error"))
    window.composer.mic_button.click()
    bar = window.composer.dictation_bar
    await until(lambda: window.dictation_actions.state == "idle" and bar.isVisible())
    kept = window.dictation_actions.clip
    window.dictation_actions.action.trigger()  # Ctrl+Shift+D
    await asyncio.sleep(0.1)
    assert "has not been written down yet" in bar.label.text()
    assert window.dictation_actions.clip is kept and microphone.opened == 1
    assert bar.action_button.text() == "Try again" and bar.save_button.isVisible()


async def test_dictation_waits_while_the_composer_takes_nothing(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    microphone = use(window, PlayedMicrophone(tone(0.5)))
    window.composer.set_enabled_reason("question_pending")
    assert not window.composer.mic_button.isEnabled()
    window.dictation_actions.action.trigger()
    await asyncio.sleep(0.1)
    assert microphone.opened == 0 and window.dictation_actions.state == "idle"


@pytest.mark.parametrize("what", ["recording", "kept"])
async def test_closing_the_window_asks_before_losing_what_was_said(
    window: MainWindow,
    loopback: LoopbackServer,
    stt: None,
    monkeypatch: pytest.MonkeyPatch,
    what: str,
) -> None:
    microphone = use(window, PlayedMicrophone(tone(0.5)))
    await record(window, 0.5)
    if what == "kept":
        loopback.enqueue(STT, openai_json_error(500, "overloaded", type="server_error"))
        window.composer.mic_button.click()
        await until(lambda: window.dictation_actions.state == "idle")
    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    asked: list[str] = []

    def question(parent: Any, title: str, text: str, *args: Any) -> Any:
        asked.append(text)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", question)
    window.close()
    assert window.isVisible() and len(asked) == 1 and "not been written down" in asked[0]
    window.close()
    assert not window.isVisible() and len(asked) == 2
    assert microphone.closed == 1 and window.dictation_actions.state == "idle"


async def test_a_split_sample_does_not_confuse_the_level(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    quiet = tone(0.6, loudness=0.01)
    use(window, PlayedMicrophone(quiet, chunk=3201))
    await record(window, 0.6)
    recorder = window.dictation_actions.recorder
    assert recorder is not None
    clip = recorder.stop()
    window.dictation_actions.cancel()
    assert clip is not None and clip.pcm.startswith(quiet)
    assert 0.009 < clip.peak < 0.011  # a sample read across two deliveries would be ~1.0


async def test_a_microphone_that_cannot_open_or_breaks_says_so(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    bar = window.composer.dictation_bar
    use(window, PlayedMicrophone(b"", refuse="No microphone was found."))
    window.composer.mic_button.click()
    await until(lambda: bar.label.text() == "No microphone was found.")
    assert window.dictation_actions.state == "idle" and window.composer.mic_button.isEnabled()
    use(window, PlayedMicrophone(tone(2.0), break_after=0.6))
    window.composer.mic_button.click()
    await until(lambda: "unplugged" in bar.label.text())
    assert window.dictation_actions.state == "idle"
    assert bar.action_button.text() == "Write down what was recorded"
    loopback.enqueue(STT, json_reply({"text": "What I said before it broke."}))
    bar.action_button.click()
    await until(lambda: window.composer.text() == "What I said before it broke.")
    _shape, pcm = frames(uploaded(loopback.requests[0])[1])
    assert len(pcm) == int(0.6 * SPEECH.bytes_per_second)


async def test_the_recording_stops_and_is_written_down_at_the_limit(
    window: MainWindow, loopback: LoopbackServer, stt: None
) -> None:
    window.dictation_actions.max_seconds = 0.5
    use(window, PlayedMicrophone(tone(2.0)))
    loopback.enqueue(STT, json_reply({"text": "Short and sweet."}))
    window.composer.mic_button.click()
    await until(lambda: window.composer.text() == "Short and sweet.")
    _shape, pcm = frames(uploaded(loopback.requests[0])[1])
    assert len(pcm) == int(0.5 * SPEECH.bytes_per_second)


def test_a_float_recording_becomes_16_bit_wav_and_levels_are_read_per_format() -> None:
    fmt = PcmFormat(48_000, 2, "float32")
    pcm = tone(0.1, fmt, loudness=0.5) + array("f", [1.5, -2.0]).tobytes()  # clipped
    clip = Clip(pcm, fmt, 0.1, peak_of(pcm, "float32"))
    shape, data = frames(wav_of(clip))
    assert shape == (48_000, 2, 2) and len(data) == len(pcm) // 2
    samples = array("h", data)
    assert max(samples[:-2]) == pytest.approx(0.5 * 32767, abs=2)
    assert list(samples[-2:]) == [32767, -32767] and clip.peak == 1.0
    assert peak_of(tone(0.1, loudness=0.25), "int16") == pytest.approx(0.25, abs=0.01)
    assert peak_of(bytes([128, 192, 64]), "uint8") == 0.5
    assert peak_of(b"", "int16") == 0.0


def test_the_real_microphone_says_when_there_is_none(qapp: Any) -> None:
    from PySide6.QtMultimedia import QMediaDevices

    if QMediaDevices.audioInputs():
        pytest.skip("this machine has a microphone: the test would record it")
    with pytest.raises(MicrophoneError, match="No microphone was found"):
        Microphone().open()


async def test_a_voice_memo_attached_is_written_down_on_its_chip_and_sent_as_words(
    window: MainWindow, loopback: LoopbackServer, stt: None, tmp_path: Path, qtbot: Any
) -> None:
    from mira_desktop.services.voice_clip import wav_bytes
    from tests.support.loopback import openai_stream

    memo = tmp_path / "voice memo.wav"
    memo.write_bytes(wav_bytes(tone(0.4), 16_000, 1))
    said = "Remember to water the tomatoes before the heatwave on Thursday."
    loopback.enqueue(STT, json_reply({"text": said}))
    window.composer_actions.attachments.add_paths([str(memo)])
    [chip] = window.composer.strip.chips()
    assert chip.detail_label.text() == "Writing down what is said…"
    await until(chip.is_ready)
    assert chip.info is not None and chip.info.badge == "WAV"
    assert said in chip.toolTip()
    assert fields_of(loopback, 0)["filename"] == "voice memo.wav"
    loopback.enqueue("/v1/chat/completions", openai_stream(["Noted: tomatoes, Thursday."]))
    window.composer.set_text("What should I remember?")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(loopback.requests) == 2)
    content = loopback.requests[1].json["messages"][-1]["content"]
    assert said in content and content.endswith("What should I remember?")
    # the question's files line shows, on hover, what the model read
    await until(lambda: len(window.timeline.message_ids()) >= 1)
    files = window.timeline.message_widget(window.timeline.message_ids()[0]).findChild(
        QLabel, "messageAttachments"
    )
    assert files is not None and "voice memo.wav" in files.text()
    assert "voice memo.wav, as written down:" in files.toolTip() and said in files.toolTip()


async def test_a_voice_memo_without_a_model_is_refused_with_the_reason(
    window: MainWindow, loopback: LoopbackServer, tmp_path: Path
) -> None:
    memo = tmp_path / "memo.m4a"
    memo.write_bytes(b"\x00\x00\x00\x20ftypM4A " + bytes(400))
    window.composer_actions.attachments.add_paths([str(memo)])
    await until(lambda: window.composer.attach_error.isVisible())
    assert "No speech-to-text model is chosen." in window.composer.attach_error.text()
    assert window.composer.strip.chips() == [] and loopback.requests == []


def fields_of(loopback: LoopbackServer, index: int) -> dict[str, str]:
    return uploaded(loopback.requests[index])[0]


async def test_removing_a_voice_memo_while_it_is_written_down_stops_the_upload(
    window: MainWindow, loopback: LoopbackServer, stt: None, tmp_path: Path
) -> None:
    from mira_desktop.services.voice_clip import wav_bytes

    memo = tmp_path / "wrong memo.wav"
    memo.write_bytes(wav_bytes(tone(0.4), 16_000, 1))
    loopback.enqueue(STT, Reply(chunks=[Hang()], framing="chunked"))
    window.composer_actions.attachments.add_paths([str(memo)])
    await until(lambda: len(loopback.requests) == 1)
    [chip] = window.composer.strip.chips()
    chip.remove_button.click()
    await until(lambda: loopback.disconnects >= 1)
    await asyncio.sleep(0.1)
    assert window.composer.strip.chips() == [] and not window.composer.attach_error.isVisible()
    assert not any(p.is_file() for p in (window.services.data_dir / "media").rglob("*"))


async def test_a_saved_recording_gives_way_to_a_new_one(
    window: MainWindow,
    loopback: LoopbackServer,
    stt: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    composer = window.composer
    microphone = use(window, PlayedMicrophone(tone(0.5)))
    await record(window, 0.5)
    loopback.enqueue(STT, openai_json_error(500, "overloaded", type="server_error"))
    composer.mic_button.click()
    await until(lambda: window.dictation_actions.state == "idle")
    target = tmp_path / "kept.wav"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    composer.dictation_bar.save_button.click()
    await until(lambda: window.dictation_actions.saved_to == str(target))
    assert not window.dictation_actions.would_lose()
    composer.mic_button.click()  # saved: a new recording may replace it
    await until(lambda: window.dictation_actions.state == "recording")
    assert microphone.opened == 2 and window.dictation_actions.clip is None
    window.dictation_actions.cancel()


async def test_dictated_words_can_be_sent_at_once(
    window: MainWindow, services: Services, loopback: LoopbackServer, stt: None
) -> None:
    from mira_desktop.core.media_keys import SEND_DICTATION_KEY
    from tests.support.loopback import openai_stream

    await services.settings.set(SEND_DICTATION_KEY, True)
    use(window, PlayedMicrophone(tone(0.5)))
    await record(window, 0.5)
    loopback.enqueue(STT, json_reply({"text": "What is the capital of Peru?"}))
    loopback.enqueue("/v1/chat/completions", openai_stream(["Lima."]))
    window.composer.mic_button.click()
    await until(lambda: len(loopback.requests) == 2)
    question = loopback.requests[1].json["messages"][-1]["content"]
    assert question == "What is the capital of Peru?" and window.composer.text() == ""
    await until(lambda: not window.chat.is_running(window.presenter.key))


async def test_words_sent_at_once_stay_out_of_another_conversation(
    window: MainWindow, services: Services, loopback: LoopbackServer, stt: None
) -> None:
    from mira_desktop.core.media_keys import SEND_DICTATION_KEY
    from tests.services.seed import make_thread
    from tests.support.replies import Pause

    await services.settings.set(SEND_DICTATION_KEY, True)
    other = await make_thread(services, "Another chat", ["hello"])
    first = window.presenter.key
    use(window, PlayedMicrophone(tone(0.5)))
    await record(window, 0.5)
    body = b'{"text": "Add this to the first chat."}'
    loopback.enqueue(STT, Reply(headers={"content-type": "application/json"}, chunks=[Pause(0.5), body]))  # fmt: skip
    window.composer.mic_button.click()
    await until(lambda: len(loopback.requests) == 1)
    window.history_actions.open_thread(other.id)  # another conversation meanwhile
    await until(lambda: window.presenter.key == other.id)
    assert other.id != first
    await until(lambda: window.composer.text() == "Add this to the first chat.")
    assert "another conversation is open" in window.composer.dictation_bar.label.text()
    await asyncio.sleep(0.2)
    assert len(loopback.requests) == 1  # nothing sent


def test_a_drivers_nan_samples_do_not_make_a_recording_unsendable() -> None:
    fmt = PcmFormat(16_000, 1, "float32")
    pcm = array("f", [0.5, float("nan"), -0.25, float("inf"), float("-inf")]).tobytes()
    _shape, data = frames(wav_of(Clip(pcm, fmt, 0.0003, 1.0)))
    assert list(array("h", data)) == [16383, 32767, -8191, 32767, -32767]


async def test_the_line_under_the_box_follows_a_change_of_language(
    window: MainWindow, loopback: LoopbackServer, tmp_path: Path
) -> None:
    from PySide6.QtWidgets import QApplication

    from mira_desktop.ui.i18n import install_translator

    window.composer.mic_button.click()  # no model chosen: said, with Settings…
    bar = window.composer.dictation_bar
    await until(bar.isVisible)
    assert bar.label.text().startswith("Choose a speech-to-text model")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        await until(lambda: bar.label.text().startswith("要使用语音输入"))
        assert bar.action_button.text() == "设置…"
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
    await until(lambda: bar.label.text().startswith("Choose a speech-to-text model"))
