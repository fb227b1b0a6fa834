"""Full-text search on a real data folder: Chinese substrings of any length,
English words, mixed queries, query text that looks like FTS5 syntax, ranking,
snippets and highlights, time filters by an injected clock, the archived toggle,
workspaces and the trash."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.search import SearchFilters, SearchHit
from mira_desktop.services.search import SearchService, parse_query
from mira_desktop.services.snippets import make_snippet, render_html, render_marked
from mira_desktop.storage import search_sql
from mira_desktop.storage.history_store import HistoryStore

from .seed import execute, make_thread, message_ids

SHANGHAI = ZoneInfo("Asia/Shanghai")


def where(hits: list[SearchHit]) -> list[tuple[str, str]]:
    """(thread title, "title" or the snippet) per hit."""
    return [(h.thread_title, "title" if h.message_id is None else h.snippet) for h in hits]


@pytest.fixture
async def corpus(services: Services) -> Services:
    await make_thread(
        services,
        "机器学习笔记",
        [
            "我们今天讨论了人工智能和机器学习的最新进展",
            "Deep learning is a branch of machine learning.",
        ],
    )
    await make_thread(
        services, "Python tips", ["How do I learn Python?", "学习 Python 的最好方法是多写代码"]
    )
    await make_thread(services, "Cooking", ["machine washing and learning to cook"])
    return services


async def test_chinese_two_and_four_characters(corpus: Services) -> None:
    two = await corpus.search.search("学习")
    assert where(two) == [
        ("机器学习笔记", "title"),
        ("Python tips", "学习 Python 的最好方法是多写代码"),
        ("机器学习笔记", "我们今天讨论了人工智能和机器学习的最新进展"),
    ]
    assert render_marked(two[0].snippet, two[0].highlights) == "机器«学习»笔记"
    four = await corpus.search.search("机器学习")
    assert where(four) == [
        ("机器学习笔记", "title"),
        ("机器学习笔记", "我们今天讨论了人工智能和机器学习的最新进展"),
    ]
    assert four[1].highlights == ((12, 16),)
    assert await corpus.search.search("学 习") != []  # two one-character terms
    assert await corpus.search.search("学问") == []


async def test_english_words_case_insensitive_and_mixed(corpus: Services) -> None:
    assert where(await corpus.search.search("PYTHON")) == [
        ("Python tips", "title"),
        ("Python tips", "学习 Python 的最好方法是多写代码"),
        ("Python tips", "How do I learn Python?"),
    ]
    assert where(await corpus.search.search("python 学习")) == [
        ("Python tips", "学习 Python 的最好方法是多写代码")
    ]
    assert where(await corpus.search.search("Py 习")) == [
        ("Python tips", "学习 Python 的最好方法是多写代码")
    ]
    assert await corpus.search.search("python cooking") == []  # every term must match


async def test_exact_phrase_before_scattered_and_titles_first(corpus: Services) -> None:
    hits = await corpus.search.search("machine learning")
    assert where(hits) == [
        ("机器学习笔记", "Deep learning is a branch of machine learning."),
        ("Cooking", "machine washing and learning to cook"),
    ]
    assert hits[0].score > hits[1].score
    quoted = await corpus.search.search('"machine learning"')
    assert where(quoted) == [("机器学习笔记", "Deep learning is a branch of machine learning.")]
    await make_thread(corpus, "Machine learning course", ["syllabus"])
    assert where(await corpus.search.search("machine learning"))[0] == (
        "Machine learning course",
        "title",
    )


async def test_newest_first_on_ties(services: Services) -> None:
    await make_thread(services, "old", ["a banana bread"], at=datetime(2024, 1, 1, tzinfo=SHANGHAI))
    await make_thread(services, "new", ["a banana bread"], at=datetime(2024, 3, 1, tzinfo=SHANGHAI))
    await make_thread(services, "mid", ["a banana bread"], at=datetime(2024, 2, 1, tzinfo=SHANGHAI))
    assert [h.thread_title for h in await services.search.search("banana")] == ["new", "mid", "old"]


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "*",
        "AND",
        "-",
        "OR",
        "NOT",
        'a"b',
        "NEAR(x y)",
        "title:x",
        "^start",
        "(",
        ")",
        '"unbalanced',
        "''",
        "a* OR b*",
        '学"习',
        "\\",
        "%",
        "_",
        "-machine",
        "+",
        "{a b}",
        "x\x00y",
        "caf\udce9",  # a terminal's undecodable byte (a lone surrogate)
    ],
)
async def test_query_syntax_is_literal_and_never_breaks(corpus: Services, query: str) -> None:
    assert isinstance(await corpus.search.search(query), list)


async def test_special_characters_match_literally(services: Services) -> None:
    await make_thread(
        services,
        "chars",
        ["C++ * pointer", "rock AND roll", "100% sure", "snake_case", "1000 things"],
    )
    assert [h.snippet for h in await services.search.search("*")] == ["C++ * pointer"]
    assert [h.snippet for h in await services.search.search("0%")] == ["100% sure"]
    assert [h.snippet for h in await services.search.search("_")] == ["snake_case"]
    assert [h.snippet for h in await services.search.search("AND")] == ["rock AND roll"]
    assert [h.snippet for h in await services.search.search("C++")] == ["C++ * pointer"]


async def test_snippet_is_a_window_around_the_match(services: Services) -> None:
    text = ("lorem ipsum dolor sit amet " * 10) + "the NEEDLE is here " + ("consectetur " * 20)
    await make_thread(services, "long", [text])
    (hit,) = await services.search.search("needle")
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= 84
    ((start, end),) = hit.highlights
    assert hit.snippet[start:end] == "NEEDLE"
    html = render_html("<b>&" + hit.snippet[start:end], ((4, 10),))
    assert html == "&lt;b&gt;&amp;<mark>NEEDLE</mark>"


def test_snippet_helpers_merge_and_mark() -> None:
    snippet, spans = make_snippet("Machine\n\nlearning,  machine learning", ["machine", "learning"])
    assert snippet == "Machine learning, machine learning"
    assert spans == ((0, 16), (18, 34))
    assert (
        render_marked(snippet, spans, open_mark="[", close_mark="]")
        == "[Machine learning], [machine learning]"
    )
    assert parse_query('  "deep  learning"  学习 学习 ').terms == ("deep learning", "学习")


async def test_since_filters_use_the_injected_clock(services: Services) -> None:
    now = datetime(2024, 8, 15, 10, 0, tzinfo=SHANGHAI)  # Thursday
    moments = {
        "today": datetime(2024, 8, 15, 0, 5, tzinfo=SHANGHAI),
        "monday": datetime(2024, 8, 12, 9, 0, tzinfo=SHANGHAI),
        "august": datetime(2024, 8, 2, 9, 0, tzinfo=SHANGHAI),
        "july": datetime(2024, 7, 1, 0, 0, tzinfo=SHANGHAI),
        "june": datetime(2024, 6, 30, 23, 59, tzinfo=SHANGHAI),
    }
    for title, at in moments.items():
        await make_thread(services, title, ["zebra crossing"], at=at)
    search = SearchService(HistoryStore(services.store.worker), now=lambda: now, tz=SHANGHAI)
    found = {}
    for since in ("today", "week", "month", "quarter", None):
        found[since] = [h.thread_title for h in await search.search("zebra", since=since)]
        assert [h.thread_title for h in await search.search("ze", since=since)] == found[since]
    assert found == {
        "today": ["today"],
        "week": ["today", "monday"],
        "month": ["today", "monday", "august"],
        "quarter": ["today", "monday", "august", "july"],
        None: ["today", "monday", "august", "july", "june"],
    }
    later = datetime(2024, 10, 2, 12, 0, tzinfo=SHANGHAI)
    assert await services.search.search("zebra", since="quarter", now=later) == []


async def test_archived_trash_workspace_and_deleted_messages(services: Services) -> None:
    work = await services.workspaces.create("Work")
    archived = await make_thread(services, "archived", ["walrus one"])
    trashed = await make_thread(services, "trashed", ["walrus two"])
    at_work = await make_thread(services, "at work", ["walrus three"], workspace_id=work.id)
    undone = await make_thread(services, "undone", ["walrus four"])
    await services.history.archive(archived.id)
    await services.history.trash(trashed.id)
    (message_id,) = await message_ids(services, undone.id)
    await execute(
        services,
        "UPDATE messages SET deleted_at = '2024-01-01T00:00:00.000Z' WHERE id = ?",
        message_id,
    )
    assert [h.thread_title for h in await services.search.search("walrus")] == ["at work"]
    with_archived = await services.search.search("walrus", include_archived=True)
    assert [h.thread_title for h in with_archived] == ["at work", "archived"]
    assert [
        h.thread_title for h in await services.search.search("walrus", workspace_id=work.id)
    ] == ["at work"]
    assert await services.search.search("trashed") == []
    assert (
        await services.search.search(
            "wa", workspace_id=(await services.workspaces.default_workspace()).id
        )
        == []
    )
    assert at_work.workspace_id == work.id


async def test_at_most_three_message_hits_per_thread(services: Services) -> None:
    await make_thread(services, "apples", [f"apple number {n}" for n in range(6)])
    await make_thread(services, "more", ["one apple"])
    hits = await services.search.search("apple")
    # the title first; then the shortest message (BM25 normalises by length)
    assert where(hits)[:2] == [("apples", "title"), ("more", "one apple")]
    assert [h.thread_title for h in hits[2:]] == ["apples"] * 3
    assert len(await services.search.search("apple", limit=2)) == 2


async def test_messages_are_not_read_when_titles_fill_the_window(services: Services) -> None:
    for n in range(3):
        await make_thread(services, f"kiwi {n}", [f"kiwi message {n}"])
    filters = SearchFilters()
    worker = services.store.worker
    titles, messages = await worker.run(search_sql.candidates, ["kiwi"], filters, window=3)
    assert [c.text for c in titles] == ["kiwi 2", "kiwi 1", "kiwi 0"] and messages == []
    titles, messages = await worker.run(search_sql.candidates, ["kiwi"], filters, window=4)
    assert len(titles) == 3 and [c.text for c in messages] == [
        f"kiwi message {n}" for n in (2, 1, 0)
    ]
    search = SearchService(HistoryStore(worker), window=2)
    assert [h.snippet for h in await search.search("kiwi", limit=1)] == ["kiwi 2"]
    assert len(await search.search("kiwi", limit=6)) == 6  # window 12: messages too


async def test_messages_are_not_read_when_titles_fill_the_list(services: Services) -> None:
    """With as many matching titles as the search shows, its message query
    could only add hits below the last one shown: it does not run."""
    for n in range(3):
        await make_thread(services, f"fig {n}", [f"fig message {n}"])
    worker = services.store.worker
    statements: list[str] = []

    def trace(db: Any, on: bool) -> None:
        db.conn.set_trace_callback(statements.append if on else None)

    async def search(limit: int) -> list[SearchHit]:
        statements.clear()
        await worker.run(trace, True)
        try:
            return await services.search.search("fig", limit=limit)
        finally:
            await worker.run(trace, False)

    hits = await search(3)
    assert [h.thread_title for h in hits] == ["fig 2", "fig 1", "fig 0"]
    assert all(h.message_id is None for h in hits)
    assert any("threads_fts" in sql for sql in statements)
    assert not any("messages_fts" in sql for sql in statements)
    hits = await search(4)  # one more than the titles: the newest message joins them
    assert [h.snippet for h in hits][3] == "fig message 2"
    assert any("messages_fts" in sql for sql in statements)
    titles, messages = await worker.run(
        search_sql.candidates, ["fig"], SearchFilters(), window=200, shown=3
    )
    assert len(titles) == 3 and messages == []


def test_two_quoted_phrases_stay_two_terms() -> None:
    """The phrase pattern's \\S took the closing quote: two phrases in a query
    parsed as one phrase and two stray words, and nothing was found."""
    assert parse_query('"ship on Friday" "on Friday"').terms == ("ship on Friday", "on Friday")
    assert parse_query('"a b" c "d"').terms == ("a b", "c", "d")
    assert parse_query('x " y').terms == ("x", '"', "y")
