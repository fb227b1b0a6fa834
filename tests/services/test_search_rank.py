"""Ranking of search candidates (``services/search.py``, ``rank``) and the fast
term matching it uses (``services/snippets.py``, ``FoldedQuery``): tier by tier
on lower-cased text, it must give what the straightforward version — every
candidate scored with the case-insensitive patterns, one sort, a snippet per
hit — gives, while reading only the tiers it returns."""

from __future__ import annotations

import random
import re
import string
import sys
from collections.abc import Iterator, Sequence

import pytest

from mira_desktop.core.search import SearchCandidate, SearchHit
from mira_desktop.services.search import HITS_PER_THREAD, parse_query, rank
from mira_desktop.services.snippets import (
    _SPACE_BYTES,
    _SPACES,
    FoldedQuery,
    make_snippet,
    term_patterns,
)

K1, B = 1.2, 0.75


def reference_rank(
    terms: Sequence[str],
    titles: Sequence[SearchCandidate],
    messages: Sequence[SearchCandidate],
    limit: int = 50,
) -> list[SearchHit]:
    """The ranking before it was tiered (regex scoring of every candidate)."""
    patterns = term_patterns(terms)
    phrase, counted = patterns[0], (patterns[1:] or patterns)
    scored = []
    for is_title, group in ((True, titles), (False, messages)):
        if not group:
            continue
        average = sum(len(c.text) for c in group) / len(group)
        for c in group:
            norm = K1 * (1.0 - B + B * len(c.text) / max(average, 1.0))
            rel = 0.0
            for pattern in counted:
                f = sum(1 for _ in pattern.finditer(c.text))
                rel += f * (K1 + 1.0) / (f + norm)
            scored.append((c, is_title, phrase.search(c.text) is not None, rel))
    scored.sort(key=lambda s: s[0].created_at, reverse=True)
    scored.sort(key=lambda s: (not s[1], not s[2], -round(s[3], 1)))
    hits: list[SearchHit] = []
    per: dict[str, int] = {}
    for c, is_title, exact, rel in scored:
        if not is_title:
            if per.get(c.thread_id, 0) >= HITS_PER_THREAD:
                continue
            per[c.thread_id] = per.get(c.thread_id, 0) + 1
        snippet, highlights = make_snippet(c.text, terms, patterns=patterns)
        score = 20.0 * is_title + 10.0 * exact + rel / (1.0 + rel)
        hits.append(
            SearchHit(
                c.thread_id,
                c.thread_title,
                c.message_id,
                snippet,
                highlights,
                round(score, 4),
                c.created_at,
                c.workspace_id,
            )
        )
        if len(hits) >= limit:
            break
    return hits


WORDS = ["machine", "Machine", "LEARNING", "learning", "data", "数据库", "机器学习", "C++"]
WORDS += ["pipeline", "lorem", "ipsum", "İstanbul", "straße", "x", "the", "a"]
# letters IGNORECASE matches unlike str.lower: "ı" and "ſ" (as "i", "s"), "İ" (2 chars
# in lower case); the Kelvin sign, which both match with "k"
WORDS += ["maſchine", "learnıng", "DİSK", "\u212aelvin", "Ωmega"]
SEPARATORS = [" ", " ", " ", "  ", "\n", "\t", "，", ", "]


def random_text(rng: random.Random, size: int) -> str:
    out: list[str] = []
    for _ in range(size):
        out += [rng.choice(WORDS), rng.choice(SEPARATORS)]
    return "".join(out).strip() or "x"


def candidates(rng: random.Random, count: int, *, titles: bool) -> list[SearchCandidate]:
    return [
        SearchCandidate(
            thread_id=f"t{rng.randrange(count // 3 + 1)}",
            thread_title="title",
            workspace_id="w",
            message_id=None if titles else f"m{n}",
            text=random_text(rng, rng.randrange(1, 6 if titles else 60)),
            created_at=f"2024-01-{rng.randrange(1, 29):02d}T00:00:00.000Z",
        )
        for n in range(count)
    ]


QUERIES = [
    "machine",
    "machine learning",
    "MACHINE learning",
    '"machine learning"',
    "数据库",
    "数据库 machine",
    "c++ data",
    "İstanbul",
    "STRASSE",
    "straße lorem",
    "learning machine data",
    "disk kelvin",
    "ſ",
    "ω",
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("seed", range(6))
def test_tiered_rank_equals_scoring_everything(query: str, seed: int) -> None:
    rng = random.Random(f"{query}/{seed}")
    terms = parse_query(query).terms
    titles = candidates(rng, rng.choice([0, 3, 30, 80]), titles=True)
    messages = candidates(rng, rng.choice([0, 40, 200]), titles=False)
    for limit in (1, 7, 50, 500):
        assert rank(terms, titles, messages, limit=limit) == reference_rank(
            terms, titles, messages, limit
        )


def test_exact_phrase_tier_beats_relevance_and_titles_beat_both() -> None:
    def message(n: int, text: str) -> SearchCandidate:
        return SearchCandidate(f"t{n}", "t", "w", f"m{n}", text, f"2024-01-0{n}T00:00:00Z")

    scattered = message(1, "learning machine. learning machine. learning machine.")
    exact = message(2, "a long message that mentions machine\n\nlearning once " + "z " * 50)
    newer_exact = message(3, "a long message that mentions machine learning once " + "z " * 50)
    title = SearchCandidate("t9", "Learning", "w", None, "Learning about machines", "2023")
    hits = rank(["machine", "learning"], [title], [scattered, exact, newer_exact])
    assert [h.message_id for h in hits] == [None, "m3", "m2", "m1"]
    assert [round(h.score) for h in hits] == [21, 11, 11, 1]
    # the phrase across a blank line is exact, and its snippet shows it
    assert hits[2].snippet.count("machine learning") == 1


class Exploding(Sequence[SearchCandidate]):
    """Message candidates that must never be looked at."""

    def __len__(self) -> int:
        return 200

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        raise AssertionError("messages read although titles filled the list")

    def __iter__(self) -> Iterator[SearchCandidate]:
        raise AssertionError("messages read although titles filled the list")


def test_titles_that_fill_the_list_leave_messages_unread() -> None:
    titles = [
        SearchCandidate(f"t{n}", f"python {n}", "w", None, f"python {n}", f"2024-{n:04d}")
        for n in range(60)
    ]
    hits = rank(["python"], titles, Exploding(), limit=50)
    assert len(hits) == 50
    assert [h.thread_id for h in hits[:2]] == ["t59", "t58"]  # ties: the newest first
    with pytest.raises(AssertionError, match="messages read"):
        rank(["python"], titles, Exploding(), limit=61)


@pytest.mark.parametrize("query", [*QUERIES, "ß", "ı", "\u212a", "İ", "a b", "ǅ"])
def test_folded_query_finds_what_the_patterns_find(query: str) -> None:
    rng = random.Random(query)
    terms = parse_query(query).terms
    folded_query = FoldedQuery(terms)
    patterns = term_patterns(terms)
    texts = [random_text(rng, rng.randrange(1, 40)) for _ in range(300)]
    texts += ["İİ machine learning İstanbul", "MACHINE\tLEARNING", "", "STRASSE", "ſ ı"]
    for text in texts:
        folded = folded_query.fold(text)
        phrase = patterns[0].search(text)
        assert folded_query.phrase(text, folded) == (phrase.span() if phrase else None)
        assert folded_query.counts(text, folded) == [
            len(p.findall(text)) for p in (patterns[1:] or patterns)
        ]
        ((measured, found, counts),) = folded_query.measure_all([text])
        assert (found, counts) == (phrase is not None, folded_query.counts(text, folded))
        expected = make_snippet(text, terms)
        assert folded_query.snippet(text, measured, phrase_found=found) == expected
        assert (
            make_snippet(text, terms, patterns=patterns, anchor=folded_query.anchor(text, folded))
            == expected
        )
        assert folded_query.snippet(text, folded) == expected
        found = phrase is not None
        assert folded_query.snippet(text, folded, phrase_found=found) == expected
        assert folded_query.snippet(text, folded, width=20) == make_snippet(text, terms, width=20)


def test_folding_only_where_it_finds_what_ignorecase_finds() -> None:
    assert FoldedQuery(["数据库"]).fold("DATA 数据库") == "DATA 数据库"  # nothing to fold
    assert FoldedQuery(["data"]).fold("DATA 数据库") == "data 数据库"
    assert FoldedQuery(["data"]).fold("ÀB DATA 数据库") == "Àb data 数据库"  # ASCII only
    assert FoldedQuery(["data"]).fold("İ data") is None  # IGNORECASE: "İ" is an "i"
    assert FoldedQuery(["data"]).fold("ı data") is None
    assert FoldedQuery(["data"]).fold("DAſA") is None
    assert FoldedQuery(["data"]).fold("\u212a data") is None
    assert FoldedQuery(["data"]).fold("\ud800 data") is None
    assert FoldedQuery(["Straße"]).fold("strasse") is None  # a term with non-ASCII case
    assert FoldedQuery(["数据server"]).fold("数据SERVER") == "数据server"
    query = FoldedQuery(["machine", "learning"])
    assert query.phrase("MACHINE \n Learning", query.fold("MACHINE \n Learning")) == (0, 18)
    assert re.fullmatch(r"\s+", "\u3000")  # the patterns' \s: full-width space too
    assert query.phrase("machine\u3000learning", query.fold("machine\u3000learning")) == (0, 16)


def test_ignorecase_matches_ascii_letters_with_their_cases_and_four_others() -> None:
    """The ground FoldedQuery stands on, over every code point."""
    everything = "".join(chr(n) for n in range(sys.maxunicode + 1) if not 0xD800 <= n <= 0xDFFF)
    others: set[str] = set()
    for letter in string.ascii_lowercase:
        found = set(re.findall(letter, everything, re.IGNORECASE))
        assert {letter, letter.upper()} <= found
        others |= found - {letter, letter.upper()}
    assert others == {"İ", "ı", "ſ", "\u212a"}


def test_the_whitespace_of_byte_patterns_is_that_of_str_patterns() -> None:
    everything = "".join(chr(n) for n in range(sys.maxunicode + 1) if not 0xD800 <= n <= 0xDFFF)
    assert set(re.findall(r"\s", everything)) == {c for c in everything if c.isspace()}
    assert set(_SPACES) == {c for c in everything if c.isspace()}
    assert re.fullmatch(b"a" + _SPACE_BYTES + b"b", "a\u3000 \n\u2028b".encode())
    query = FoldedQuery(["Deep", "learning"])
    texts = ["DEEP\u3000LEARNING 数据", "deep\xa0\xa0learning", "deep-learning", "deep\x1clearning"]
    assert [found for _, found, _ in query.measure_all(texts)] == [True, True, False, True]
    assert [type(form) for form, _, _ in query.measure_all(texts)] == [bytes] * 4


def test_every_space_and_nothing_else_matches_the_byte_whitespace() -> None:
    """``_SPACE_BYTES`` (a class and lead bytes, not the 25 alternatives) on the
    UTF-8 of every code point: a match exactly for the ``str.isspace`` ones."""
    pattern = re.compile(_SPACE_BYTES)
    matched = {
        chr(n)
        for n in range(sys.maxunicode + 1)
        if not 0xD800 <= n <= 0xDFFF and pattern.fullmatch(chr(n).encode())
    }
    assert matched == set(_SPACES)
    assert pattern.fullmatch("\u3000\n\xa0 ".encode())
    assert not pattern.fullmatch(b"\xe2\x80")  # a piece of a character: no


def test_a_snippet_can_show_a_phrase_its_text_lacks_when_a_term_holds_the_ellipsis() -> None:
    """Highlights of a text without the phrase leave the phrase out — unless the
    snippet's leading "…" can complete it."""
    text = "a " * 40 + "foo" + " " * 22 + "bar " + "z " * 40
    terms = ["…foo", "bar"]
    query = FoldedQuery(terms)
    ((folded, found, _),) = query.measure_all([text])
    assert not found
    snippet, highlights = query.snippet(text, folded, phrase_found=False)
    assert snippet.startswith("…foo bar") and highlights[0] == (0, 8)
    assert (snippet, highlights) == make_snippet(text, terms)
    message = SearchCandidate("t", "t", "w", "m", text, "2024")
    assert rank(terms, [], [message]) == reference_rank(terms, [], [message])
    # without the ellipsis the phrase pattern is skipped, with the same result
    plain = FoldedQuery(["foo", "bar"])
    ((folded, found, _),) = plain.measure_all([text])
    assert plain.snippet(text, folded, phrase_found=found) == make_snippet(text, ["foo", "bar"])


def test_a_search_as_the_user_types_reuses_its_query_and_ranks_the_same() -> None:
    rng = random.Random(7)
    messages = candidates(rng, 200, titles=False)
    terms = parse_query("machine learning").terms
    first = rank(terms, [], messages)
    assert rank(list(terms), [], messages) == first == reference_rank(terms, [], messages)


def test_hits_cut_their_snippet_when_first_read_and_only_then() -> None:
    rng = random.Random(11)
    messages = candidates(rng, 200, titles=False)
    terms = parse_query("machine learning").terms
    hits = rank(terms, [], messages)
    assert len(hits) == 50 and not any(hit.is_cut for hit in hits)
    by_id = {c.message_id: c for c in messages}
    third = hits[3]
    assert third.snippet == make_snippet(by_id[third.message_id].text, terms)[0]
    assert [hit.is_cut for hit in hits[:5]] == [False, False, False, True, False]
    assert third.to_dict()["highlights"] == [list(span) for span in third.highlights]
    # reading every hit gives the ranking scored the straightforward way
    assert hits == reference_rank(terms, [], messages)
    assert all(hit.is_cut for hit in hits)


def test_a_hit_cut_later_is_the_value_of_the_hit_made_with_its_snippet() -> None:
    calls: list[int] = []

    def cut() -> tuple[str, tuple[tuple[int, int], ...]]:
        calls.append(1)
        return "a «machine» snippet", ((3, 10),)

    later = SearchHit.cut_later("t1", "Title", "m1", cut, 10.5, "2024-01-01", "w")
    made = SearchHit(
        "t1", "Title", "m1", "a «machine» snippet", ((3, 10),), 10.5, "2024-01-01", "w"
    )
    assert made.is_cut and not later.is_cut and calls == []
    assert later.highlights == ((3, 10),) and later.snippet == made.snippet
    assert calls == [1]  # once, whatever is read after
    assert later == made and hash(later) == hash(made) and repr(later) == repr(made)
    assert later.to_dict() == made.to_dict()
    assert later != SearchHit("t1", "Title", "m1", "other", (), 10.5, "2024-01-01", "w")
    assert repr(made).startswith("SearchHit(thread_id='t1', thread_title='Title'")
