"""The model context of the chat path (issue 7) against the loopback server and
a real data folder: role parameters on every path, attachments (newest in full,
older by name, images by vision flag, pending references of a failed draft,
reference counts), and the context summary (injected, lag, clear)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import ChatEvent, Completed, Failed, UserMessageSaved
from mira_desktop.core.ids import new_id
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.context import SUMMARY_HEADER
from mira_desktop.services.regenerate import RegenerateRequest
from mira_desktop.services.summary import AUTO_REFRESH_KEY
from tests.support.documents import make_image, make_pdf, make_xlsx
from tests.support.loopback import LoopbackServer, openai_json_error, openai_stream

from .conftest import CHAT, text_then_hang

PARAMS = {"temperature": 0.3, "top_p": 0.8, "max_tokens": 321}


async def run(events: Any) -> list[ChatEvent]:
    collected = [event async for event in events]
    assert collected, "no events"
    return collected


async def answered(loopback: LoopbackServer, events: Any, reply: str = "ok") -> Completed:
    loopback.enqueue(CHAT, openai_stream([reply]))
    final = (await run(events))[-1]
    assert isinstance(final, Completed), final
    return final


def sent(loopback: LoopbackServer) -> dict[str, Any]:
    body = loopback.requests[-1].json
    assert isinstance(body, dict)
    return body


def media_files(services: Services) -> list[Path]:
    return sorted(p for p in (services.data_dir / "media").rglob("*") if p.is_file())


async def pending_count(services: Services) -> int:
    return await services.store.worker.run(
        lambda db: db.execute("SELECT COUNT(*) FROM media_pending").fetchone()[0]
    )


@pytest.fixture
def report_pdf(tmp_path: Path) -> Path:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf([["Revenue grew 12.5%"], ["See https://example.org/q3"]]))
    return path


async def set_model(services: Services, model: str, *, vision: bool = False, **extra: Any) -> None:
    await services.providers.update_model_settings(
        "loop",
        model,
        context_window=extra.get("context_window"),
        vision=vision,
        tier=None,
        compaction_threshold=extra.get("compaction_threshold"),
    )


# -- roles on every path -----------------------------------------------------------


def assert_role_applied(body: dict[str, Any]) -> None:
    assert {k: body.get(k) for k in PARAMS} == PARAMS
    first = body["messages"][0]
    assert first["role"] == "system" and "You are a terse pirate." in first["content"]
    assert sum(1 for m in body["messages"] if m["role"] == "system") == 1


async def test_role_prompt_and_parameters_reach_the_model_on_every_path(
    services, loopback, loop_provider
) -> None:
    role = await services.roles.create("Pirate", persona="You are a terse pirate.", **PARAMS)
    first = await answered(
        loopback,
        services.chat.send(SendRequest("q1", provider=loop_provider, model="m", role_id=role.id)),
    )
    thread_id = first.thread_id
    assert thread_id and (await services.threads.get_thread(thread_id)).role_id == role.id
    assert_role_applied(sent(loopback))  # send (a new draft)
    await answered(loopback, services.chat.send(SendRequest("q2", thread_id=thread_id)))
    assert_role_applied(sent(loopback))  # send (existing thread)
    branch = await services.conversation.active_branch(thread_id)
    await answered(loopback, services.chat.edit(thread_id, branch[2].id, "q2 edited"))
    assert_role_applied(sent(loopback))  # edit
    branch = await services.conversation.active_branch(thread_id)
    await answered(loopback, services.chat.regenerate(RegenerateRequest(thread_id, branch[3].id)))
    assert_role_applied(sent(loopback))  # regenerate
    loopback.enqueue(CHAT, text_then_hang("partial"))
    busy = asyncio.ensure_future(run(services.chat.send(SendRequest("q3", thread_id=thread_id))))
    await asyncio.to_thread(loopback.wait_for_requests, len(loopback.requests) + 1)
    await answered(loopback, services.chat.redirect(SendRequest("q4", thread_id=thread_id)))
    await busy
    assert_role_applied(sent(loopback))  # redirect
    assert sent(loopback)["messages"][-1] == {"role": "user", "content": "q4"}


async def test_unbinding_the_role_stops_sending_it(services, loopback, loop_provider) -> None:
    role = await services.roles.create("Tutor", persona="Teach.", temperature=0.1)
    first = await answered(
        loopback,
        services.chat.send(SendRequest("q", provider=loop_provider, model="m", role_id=role.id)),
    )
    await services.threads.set_role(first.thread_id, None)
    await answered(loopback, services.chat.send(SendRequest("q2", thread_id=first.thread_id)))
    body = sent(loopback)
    assert "temperature" not in body and body["messages"][0]["role"] == "user"


# -- attachments -------------------------------------------------------------------


async def test_newest_files_in_full_older_ones_by_name(
    services, loopback, loop_provider, report_pdf, tmp_path
) -> None:
    pdf = await services.attachments.prepare(report_pdf)
    request = SendRequest("Summarise", provider=loop_provider, model="m", attachments=(pdf,))
    first = await answered(loopback, services.chat.send(request))
    content = sent(loopback)["messages"][-1]["content"]
    assert content.startswith("[Attached file: report.pdf — PDF, 2 pages]")
    assert "[Page 1]\nRevenue grew 12.5%" in content and "[Page 2]" in content
    assert "[End of report.pdf]" in content and content.endswith("Summarise")
    sheet = await services.attachments.prepare(make_xlsx(tmp_path / "sales.xlsx"))
    request = SendRequest("And this?", thread_id=first.thread_id, attachments=(sheet,))
    await answered(loopback, services.chat.send(request))
    messages = sent(loopback)["messages"]
    assert messages[0]["content"] == "Summarise\n\n[Attached earlier: report.pdf]"
    assert "Revenue" not in messages[0]["content"]
    assert messages[-1]["content"].startswith(
        "[Attached file: sales.xlsx — Excel workbook, sheets:"
    )
    assert "[Sheet: " in messages[-1]["content"]
    stored = await services.attachments.attachments([m.id for m in await branch(services, first)])
    assert sorted(a.name for parts in stored.values() for a in parts) == [
        "report.pdf",
        "sales.xlsx",
    ]
    assert await pending_count(services) == 0  # the chips' references became the messages'


async def branch(services: Services, final: Completed) -> list:
    assert final.thread_id
    return await services.conversation.active_branch(final.thread_id)


async def test_images_go_to_a_vision_model_as_image_parts(
    services, loopback, loop_provider, tmp_path
) -> None:
    await set_model(services, "eye", vision=True)
    image = await services.attachments.prepare(make_image(tmp_path / "cat.png", "PNG"))
    request = SendRequest(
        "What is this?", provider=loop_provider, model="eye", attachments=(image,)
    )
    assert await services.chat.preflight(request) == []
    await answered(loopback, services.chat.send(request))
    parts = sent(loopback)["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "[Attached image: cat.png]\n\nWhat is this?"}
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == (tmp_path / "cat.png").read_bytes()


async def test_a_non_vision_model_gets_a_warning_then_a_visible_note(
    services, loopback, loop_provider, tmp_path
) -> None:
    image = await services.attachments.prepare(make_image(tmp_path / "cat.png", "PNG"))
    request = SendRequest("Look", provider=loop_provider, model="qwen3", attachments=(image,))
    warnings = await services.chat.preflight(request)
    assert [w.code for w in warnings] == ["image_not_supported"]
    assert warnings[0].message.startswith("qwen3 is not marked as able to see images;")
    assert warnings[0].message.endswith("will not be sent.") and warnings[0].names == ("cat.png",)
    final = await answered(loopback, services.chat.send(request))
    content = sent(loopback)["messages"][-1]["content"]
    assert isinstance(content, str) and "image_url" not in str(sent(loopback))
    assert "[Image not sent: cat.png" in content
    user = (await branch(services, final))[0]
    assert user.data["attachment_notes"] == [warnings[0].message]
    assert [f["name"] for f in user.data["attachments"]] == ["cat.png"]
    # the image stays on the message (the user attached it)
    assert [a.name for a in (await services.attachments.attachments([user.id]))[user.id]] == [
        "cat.png"
    ]


async def test_a_failed_draft_keeps_its_pending_files_for_the_composer(
    services, loopback, loop_provider, report_pdf
) -> None:
    pdf = await services.attachments.prepare(report_pdf)
    loopback.enqueue(CHAT, openai_json_error(500, "boom", type="server_error"))
    draft = SendRequest("Read", provider=loop_provider, model="m", attachments=(pdf,))
    final = (await run(services.chat.send(draft)))[-1]
    assert isinstance(final, Failed) and final.thread_id is None
    assert media_files(services) == [services.media.path(pdf.sha256)]
    assert await services.media.ref_count(pdf.sha256) == 1 and await pending_count(services) == 1
    # the chip comes back; sending again works with the same prepared file
    await answered(loopback, services.chat.send(draft))
    assert await services.media.ref_count(pdf.sha256) == 1 and await pending_count(services) == 0
    await services.attachments.discard(pdf)  # harmless once the message holds it
    assert await services.media.ref_count(pdf.sha256) == 1


async def test_discarding_the_chips_of_an_abandoned_draft_leaves_nothing(
    services, loopback, loop_provider, report_pdf
) -> None:
    pdf = await services.attachments.prepare(report_pdf)
    draft_id = new_id()
    loopback.enqueue(CHAT, text_then_hang())
    draft = SendRequest(
        "Read", provider=loop_provider, model="m", attachments=(pdf,), new_thread_id=draft_id
    )
    task = asyncio.ensure_future(run(services.chat.send(draft)))
    await asyncio.to_thread(loopback.wait_for_requests, 1)
    assert services.chat.stop(draft_id)
    assert (await task)[-1].thread_id is None
    await services.attachments.discard(pdf)
    assert media_files(services) == [] and await services.media.ref_count(pdf.sha256) is None


async def test_reference_counts_after_send_and_delete(
    services, loopback, loop_provider, report_pdf
) -> None:
    one = await services.attachments.prepare(report_pdf)
    two = await services.attachments.prepare(report_pdf)  # the same file twice
    first = await answered(
        loopback,
        services.chat.send(SendRequest("a", provider=loop_provider, model="m", attachments=(one,))),
    )
    await answered(
        loopback,
        services.chat.send(SendRequest("b", thread_id=first.thread_id, attachments=(two,))),
    )
    assert await services.media.ref_count(one.sha256) == 2
    assert len(media_files(services)) == 1
    await services.history.trash(first.thread_id)
    await services.history.purge(first.thread_id)
    assert await services.media.ref_count(one.sha256) in (0, None)
    await services.attachments.collect()
    await services.media.collect_garbage(only=[one.sha256])
    assert media_files(services) == []


async def test_an_edit_keeps_the_files_of_the_version_it_replaces(
    services, loopback, loop_provider, report_pdf
) -> None:
    pdf = await services.attachments.prepare(report_pdf)
    first = await answered(
        loopback,
        services.chat.send(
            SendRequest("v1", provider=loop_provider, model="m", attachments=(pdf,))
        ),
    )
    original = (await branch(services, first))[0]
    await answered(loopback, services.chat.edit(first.thread_id, original.id, "v2"))
    content = sent(loopback)["messages"][-1]["content"]
    assert "[Attached file: report.pdf" in content and content.endswith("v2")
    assert await services.media.ref_count(pdf.sha256) == 2  # one per version
    # Both versions say which files they carry, for the timeline to show.
    versions = await services.conversation.siblings(first.thread_id, original.id)
    for version in versions:
        assert [f["name"] for f in version.data["attachments"]] == ["report.pdf"]
        assert version.data["attachments"][0]["size"] == report_pdf.stat().st_size


# -- context summary ---------------------------------------------------------------


async def test_summary_is_injected_after_the_role_and_shows_its_lag(
    services, loopback, loop_provider
) -> None:
    role = await services.roles.create("Pirate", persona="You are a terse pirate.")
    first = await answered(
        loopback,
        services.chat.send(SendRequest("q1", provider=loop_provider, model="m", role_id=role.id)),
    )
    thread_id = first.thread_id
    assert await services.summaries.get(thread_id) is None
    saved = await services.summaries.set(thread_id, "User studies PMID 123456.")
    assert saved is not None and saved.lag == 0 and saved.message_count == 2
    await answered(loopback, services.chat.send(SendRequest("q2", thread_id=thread_id)))
    system = sent(loopback)["messages"][0]["content"]
    assert system.index("You are a terse pirate.") < system.index(SUMMARY_HEADER)
    assert system.endswith("User studies PMID 123456.")
    assert [m["content"] for m in sent(loopback)["messages"][1:]] == ["q1", "ok", "q2"]
    summary = await services.summaries.get(thread_id)
    assert summary is not None and summary.lag == 2 and summary.updated_at == saved.updated_at
    await services.summaries.clear(thread_id)
    assert await services.summaries.get(thread_id) is None
    await answered(loopback, services.chat.send(SendRequest("q3", thread_id=thread_id)))
    assert SUMMARY_HEADER not in sent(loopback)["messages"][0]["content"]


async def test_generated_summary_keeps_identifiers_and_uses_no_role(
    services, loopback, loop_provider
) -> None:
    role = await services.roles.create("Pirate", persona="Arr.", max_tokens=5)
    first = await answered(
        loopback,
        services.chat.send(
            SendRequest(
                "Read doi:10.1000/xyz and https://example.org/a?b=1",
                provider=loop_provider,
                model="m",
                role_id=role.id,
            )
        ),
    )
    loopback.enqueue(CHAT, openai_stream(["Summary: doi:10.1000/xyz"]))
    summary = await services.summaries.generate(first.thread_id)
    assert summary.text == "Summary: doi:10.1000/xyz" and summary.lag == 0
    body = sent(loopback)
    assert "max_tokens" not in body  # internal call: no role parameters
    prompt = body["messages"][0]["content"]
    assert all(word in prompt for word in ("URLs", "DOIs", "PMIDs", "file paths", "numbers"))
    assert "https://example.org/a?b=1" in body["messages"][1]["content"]


async def test_automatic_refresh_after_n_turns_runs_in_the_background(
    services, loopback, loop_provider
) -> None:
    first = await answered(
        loopback, services.chat.send(SendRequest("q1", provider=loop_provider, model="m"))
    )
    thread_id = first.thread_id
    await services.summaries.set(thread_id, "old summary")
    await services.settings.set(AUTO_REFRESH_KEY, 2)
    await answered(loopback, services.chat.send(SendRequest("q2", thread_id=thread_id)))
    await services.summaries.drain()
    assert (await services.summaries.get(thread_id)).text == "old summary"  # 1 turn behind
    heard: list[str] = []
    services.summaries.add_listener(lambda s: heard.append(s.text))
    loopback.enqueue(CHAT, openai_stream(["a3"]))
    loopback.enqueue(CHAT, openai_stream(["new summary"]))
    events = await run(services.chat.send(SendRequest("q3", thread_id=thread_id)))
    assert isinstance(events[-1], Completed)
    await services.summaries.drain()
    refreshed = await services.summaries.get(thread_id)
    assert refreshed.text == "new summary" and refreshed.lag == 0 and heard == ["new summary"]


async def test_a_failing_refresh_never_touches_the_answer(
    services, loopback, loop_provider
) -> None:
    first = await answered(
        loopback, services.chat.send(SendRequest("q1", provider=loop_provider, model="m"))
    )
    await services.summaries.set(first.thread_id, "old")
    await services.settings.set(AUTO_REFRESH_KEY, 1)
    loopback.enqueue(CHAT, openai_stream(["a2"]))
    loopback.enqueue(CHAT, openai_json_error(500, "down", type="server_error"))
    events = await run(services.chat.send(SendRequest("q2", thread_id=first.thread_id)))
    assert isinstance(events[-1], Completed) and events[-1].text == "a2"
    assert any(isinstance(e, UserMessageSaved) for e in events)
    await services.summaries.drain()
    assert (await services.summaries.get(first.thread_id)).text == "old"
