"""Automatic titles through the loopback server: the model's title cleaned up,
the first-words fallback on any failure, and a user's rename always winning."""

from __future__ import annotations

import asyncio

from mira_desktop.bootstrap import Services
from mira_desktop.core.models import Thread
from mira_desktop.services.context import title_from_text
from mira_desktop.services.titles import clean_generated_title, fallback_title
from tests.support.loopback import LoopbackServer, openai_json_error, openai_stream

from .conftest import CHAT
from .seed import make_thread

QUESTION = "Can you help me plan a five day trip to Kyoto in autumn with a small budget please"


async def chat_thread(services: Services, provider: str) -> Thread:
    thread = await make_thread(services, "Can you help me plan", [QUESTION, "Sure! Day one…"])
    config = await services.providers.get_provider(provider)
    return await services.store.update_thread(thread.id, provider_id=config.id, model="m")


async def test_the_model_names_the_thread(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    thread = await chat_thread(services, loop_provider)
    loopback.enqueue(CHAT, openai_stream(['Title: "Autumn trip ', 'to Kyoto".\nExtra line']))
    assert await services.titles.generate_title(thread.id) == "Autumn trip to Kyoto"
    assert (await services.threads.get_thread(thread.id)).title == "Autumn trip to Kyoto"
    body = loopback.requests[-1].json
    assert body["model"] == "m" and body["messages"][0]["role"] == "system"
    assert QUESTION in body["messages"][1]["content"]
    assert "Sure! Day one" in body["messages"][1]["content"]


async def test_errors_fall_back_to_the_first_words(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    thread = await chat_thread(services, loop_provider)
    loopback.enqueue(CHAT, openai_json_error(500, "boom"))
    title = await services.titles.generate_title(thread.id)
    assert title.startswith("Can you help me plan a five day trip") and len(title) <= 60
    loopback.enqueue(CHAT, openai_stream(["  ", '""']))  # an empty title is an error too
    assert await services.titles.generate_title(thread.id) == title
    bare = await make_thread(services, "x", ["你好，请帮我写一首关于秋天的诗"])  # no model
    assert await services.titles.generate_title(bare.id) == "你好，请帮我写一首关于秋天的诗"


async def test_a_renamed_thread_is_never_retitled(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    thread = await chat_thread(services, loop_provider)
    await services.threads.rename(thread.id, "My Kyoto plan")
    assert await services.titles.generate_title(thread.id) == "My Kyoto plan"
    assert loopback.requests == []
    # a rename while the model is still answering wins as well
    other = await chat_thread(services, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["Autumn ", "in ", "Kyoto"], delay=0.2))
    task = asyncio.create_task(services.titles.generate_title(other.id))
    await asyncio.to_thread(loopback.wait_for_requests, 1)
    await services.history.rename(other.id, "Mine")
    assert await task == "Mine"
    assert (await services.threads.get_thread(other.id)).title == "Mine"


def test_generated_titles_are_cleaned_and_short() -> None:
    assert clean_generated_title("<think>hmm</think>\n\n**“机器学习入门”**。") == "机器学习入门"
    long = clean_generated_title("word " * 30)
    assert len(long) <= 60 and long.endswith("…")
    assert clean_generated_title("**Title:** Python 排序算法") == "Python 排序算法"
    assert clean_generated_title("**标题：** 京都之旅") == "京都之旅"


def test_first_words_titles_keep_more_than_one_word() -> None:
    chinese = fallback_title("你好 " + "请帮我规划一次秋天去京都的五日游，预算不多" * 4)
    assert chinese.startswith("你好 请帮我规划") and chinese.endswith("…") and len(chinese) <= 60
    url = fallback_title("Summarize https://example.org/" + "very-long-path/" * 8)
    assert url.startswith("Summarize https://example.org/very") and len(url) <= 60
    words = fallback_title(
        "Can you help me plan a five day trip to Kyoto in autumn with a small budget"
    )
    assert words == "Can you help me plan a five day trip to Kyoto in autumn…"
    assert len(title_from_text("x" * 200)) == 60


async def test_a_model_set_to_reason_titles_with_the_least_reasoning(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    """A few words need no thought; a model left at the server's default
    gets no field it never had."""
    thread = await chat_thread(services, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["Kyoto trip"]))
    await services.titles.generate_title(thread.id)
    assert "reasoning_effort" not in loopback.requests[-1].json
    await services.providers.update_model_settings(
        loop_provider, "m", context_window=None, vision=False, tier=None,
        compaction_threshold=None, reasoning="high",
    )  # fmt: skip
    other = await chat_thread(services, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["Kyoto in autumn"]))
    assert await services.titles.generate_title(other.id) == "Kyoto in autumn"
    assert loopback.requests[-1].json["reasoning_effort"] == "low"  # the least it takes
