"""What reaches a search's candidate window (the newest matches storage
reads): no thread takes more than its share, and a quoted phrase is found
whatever whitespace stands between its words — a line break, "\\r\\n", two
spaces — while its words apart, reversed or glued to others are not."""

from __future__ import annotations

from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.search import SearchFilters
from mira_desktop.services.search import SearchService, candidates_per_thread
from mira_desktop.storage import search_sql
from mira_desktop.storage.history_store import HistoryStore
from mira_desktop.storage.search_match import PHRASE_SPACE, match_expression

from .seed import make_thread


async def test_a_chatty_thread_leaves_room_for_older_threads(services: Services) -> None:
    """The twenty newest matches were all one thread's: the list showed its
    three hits, though eight older threads matched too."""
    for n in range(8):
        await make_thread(services, f"older {n}", [f"a pear from the market {n}"])
    await make_thread(services, "chatty", [f"pear number {n}" for n in range(30)])
    search = SearchService(HistoryStore(services.store.worker), window=20)
    hits = await search.search("pear", limit=10)  # window 20, six a thread
    titles = [h.thread_title for h in hits]
    assert len(hits) == 10
    assert titles.count("chatty") == 3
    assert len({t for t in titles if t.startswith("older")}) == 7


async def test_the_thread_share_counts_only_rows_that_match_everything(
    services: Services,
) -> None:
    """Rows that fail a filter (another term, a deleted message) take no place
    of their thread's share: the newest matches of the chatty thread are ones
    without the second term, and its older ones with it still come back."""
    await make_thread(
        services,
        "chatty",
        [f"plum jam {n}" for n in range(6)] + [f"plum only {n}" for n in range(30)],
    )
    worker = services.store.worker
    _, messages = await worker.run(
        search_sql.candidates, ["plum", "jam"], SearchFilters(), window=20, per_thread=4
    )
    assert [c.text for c in messages] == [f"plum jam {n}" for n in (5, 4, 3, 2)]
    _, messages = await worker.run(
        search_sql.candidates, ["plum"], SearchFilters(), window=20, per_thread=4
    )
    assert len(messages) == 4
    _, messages = await worker.run(search_sql.candidates, ["plum"], SearchFilters(), window=20)
    assert len(messages) == 20  # no share asked: the window as before


def test_the_share_lets_a_full_window_fill_the_list() -> None:
    assert candidates_per_thread(200, 50) == 12  # 200 / 12 → 17 threads → 51 hits
    assert candidates_per_thread(200, 1) == 600
    assert candidates_per_thread(10, 50) == 3  # never below what a thread shows


@pytest.mark.parametrize(
    "text",
    [
        "we ship on\nFriday morning",
        "we ship on\r\nFriday",
        "we ship  on \n\n Friday",
        "WE SHIP ON\tFRIDAY",
        "ship on\u3000Friday",
    ],
)
async def test_a_quoted_phrase_is_found_across_line_breaks(services: Services, text: str) -> None:
    """A phrase copied from a wrapped paragraph: the trigram index matched it
    only with one space between its words."""
    await make_thread(services, "notes", [text])
    hits = await services.search.search('"ship on Friday"')
    assert [h.thread_title for h in hits] == ["notes"]
    assert "«" in hits[0].snippet or hits[0].highlights


@pytest.mark.parametrize(
    "text",
    [
        "Friday we ship on",  # reversed
        "ship it on Friday",  # a word between
        "shipping on Friday",  # glued
        "ship on Fridays",  # a longer word: still the phrase, as a substring
    ],
)
async def test_near_words_that_are_not_the_phrase_stay_out(services: Services, text: str) -> None:
    await make_thread(services, "notes", [text])
    hits = await services.search.search('"ship on Friday"')
    if text == "ship on Fridays":
        assert len(hits) == 1  # substring search, as for any term
    else:
        assert hits == []


async def test_only_phrases_that_hold_take_the_window(services: Services) -> None:
    """Rows the NEAR finds but the phrase check refuses are not counted in the
    window: a window of one still finds the older real phrase."""
    await make_thread(services, "real", ["red\napple pie"])
    await make_thread(services, "decoy", ["apple red"] * 5)
    worker = services.store.worker
    _, messages = await worker.run(search_sql.candidates, ["red apple"], SearchFilters(), window=1)
    assert [c.text for c in messages] == ["red\napple pie"]


async def test_a_phrase_with_one_long_word_and_titles(services: Services) -> None:
    await make_thread(services, "Weekly  review", ["go on\nholiday", "go onholiday"])
    hits = await services.search.search('"go on holiday"')
    assert [h.snippet for h in hits if h.message_id] == ["go on holiday"]  # one line
    hits = await services.search.search('"weekly review"')
    assert [(h.thread_title, h.message_id) for h in hits] == [("Weekly  review", None)]


async def test_whitespace_runs_up_to_the_limit(services: Services) -> None:
    await make_thread(services, "near", ["alpha" + " " * PHRASE_SPACE + "omega"])
    await make_thread(services, "far", ["alpha" + " " * (PHRASE_SPACE * 3) + "omega"])
    hits = await services.search.search('"alpha omega"')
    assert [h.thread_title for h in hits] == ["near"]


def test_match_expressions() -> None:
    def loose(term: str) -> str | None:
        return match_expression([term], loose=True)

    assert match_expression(["ship on Friday"]) == '"ship on Friday"'
    assert loose("ship on Friday") == f'NEAR("ship" "Friday", {PHRASE_SPACE * 2 + 6})'
    assert loose("on Friday") == '"Friday"'
    assert loose("to be") == '"to be"'  # no word the index can match alone
    assert loose('say "hi" now') == f'NEAR("say" """hi""" "now", {PHRASE_SPACE * 2 + 8})'
    assert match_expression(["ab", "cde"], loose=True) == '"cde"'


async def test_phrases_as_typed_that_fill_the_window_end_the_search(services: Services) -> None:
    """The phrase as typed is the index's own (fast) phrase search; the
    looser statement runs only when that leaves room in the window."""
    await make_thread(services, "wrapped", ["big\nsky country"])
    await make_thread(services, "typed", ["big sky one", "big sky two"])
    worker = services.store.worker
    statements: list[str] = []

    def trace(db: Any, on: bool) -> None:
        db.conn.set_trace_callback(statements.append if on else None)

    async def candidates(window: int) -> list[str]:
        statements.clear()
        await worker.run(trace, True)
        try:
            messages = await worker.run(
                search_sql.message_candidates, ["big sky"], SearchFilters(), window=window
            )
        finally:
            await worker.run(trace, False)
        return [c.text for c in messages]

    assert await candidates(2) == ["big sky two", "big sky one"]
    assert not any("NEAR" in sql for sql in statements)
    assert await candidates(3) == ["big sky two", "big sky one", "big\nsky country"]
    assert any("NEAR" in sql for sql in statements)


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("don't", "I don’t know"),
        ("don’t", "I don't know"),
        ('"can\'t stop"', "you can’t\nstop it"),
        ("it's ok", "It’s ok by me"),
        ("'s", "the user’s file"),  # a short term: the scan
    ],
)
async def test_straight_and_typographic_apostrophes_find_each_other(
    services: Services, query: str, text: str
) -> None:
    """Models, ChatGPT's history and smart quotes write U+2019; people type
    the straight apostrophe (and the other way round)."""
    await make_thread(services, "notes", [text, "nothing here at all"])
    hits = await services.search.search(query)
    assert [h.thread_title for h in hits] == ["notes"]
    hit = hits[0]
    assert hit.highlights  # the highlight found it too
    marked = [hit.snippet[a:b] for a, b in hit.highlights]
    assert any("’" in m or "'" in m for m in marked)
