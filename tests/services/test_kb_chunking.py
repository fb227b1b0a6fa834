"""Chunking (pure): window sizes and overlap, word and CJK sentence boundaries,
locations kept per section, the dedupe hash; query analysis; vector packing."""

from __future__ import annotations

import itertools
import re

from mira_desktop.core.knowledge import TermStats
from mira_desktop.services.kb.chunking import chunk_document, split_text, text_hash
from mira_desktop.services.kb.plan import backoff_terms, plan
from mira_desktop.services.kb.query import analyse, stem
from mira_desktop.services.kb.retrieval import fuse
from mira_desktop.services.kb.snippet import passage_snippet
from mira_desktop.services.kb.vectors import SignatureIndex, pack, rescore, signature, unpack
from mira_desktop.services.readers import Document, Section

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
]


def _english(n: int) -> str:
    return " ".join(WORDS[i % len(WORDS)] + ("." if i % 9 == 8 else "") for i in range(n))


def test_long_english_text_becomes_overlapping_windows_cut_between_words() -> None:
    text = _english(1200)
    windows = split_text(text, 1200, 200)
    assert len(windows) > 5
    assert all(len(w) <= 1200 for w in windows)
    vocabulary = {w.rstrip(".") for w in WORDS}
    for window in windows:
        first, last = window.split()[0], window.split()[-1]
        assert first.rstrip(".") in vocabulary and last.rstrip(".") in vocabulary
    for previous, following in itertools.pairwise(windows):
        assert following[:40] in previous  # the next window starts inside the previous one


def test_cjk_text_is_cut_at_sentence_punctuation() -> None:
    sentence = "人工智能正在改变桌面软件的使用方式，研究团队记录了每一次实验的结果。"
    text = sentence * 80
    windows = split_text(text, 1200, 200)
    assert len(windows) > 2
    for window in windows[:-1]:
        assert window.endswith("。")
    for window in windows[1:]:
        assert window.startswith("人工智能")


def test_sections_keep_their_locations_and_lines_advance() -> None:
    long_lines = "\n".join(f"line {n} " + _english(20) for n in range(1, 80))
    document = Document(
        name="a.md",
        mime="text/markdown",
        kind="text",
        size=1,
        sha256="x",
        text="",
        sections=(
            Section("Short page text.", {"page": 3}),
            Section(long_lines, {"line": 10, "heading": "Budget"}),
        ),
    )
    chunks = chunk_document(document)
    assert chunks[0].location == {"page": 3} and chunks[0].ordinal == 0
    rest = chunks[1:]
    assert len(rest) > 2 and all(c.location["heading"] == "Budget" for c in rest)
    for chunk in rest:
        number = int(re.match(r"line (\d+)", chunk.text).group(1))  # type: ignore[union-attr]
        assert chunk.location["line"] == 10 + number - 1
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_hash_ignores_whitespace_differences() -> None:
    assert text_hash("a  b\nc") == text_hash("a b c") != text_hash("a b d")


def test_query_terms_for_english_and_chinese() -> None:
    terms = analyse("What is the growing budget of AI projects?")
    assert terms.match == ("grow", "budget", "project")
    assert terms.short == ("ai",)
    chinese = analyse("机器学习的应用是什么？")
    assert chinese.match == ("机器学", "器学习")
    assert chinese.short == ("应用",)
    assert chinese.backoff == ((("机器学", "器学习"), ("机器", "器学", "学习")),)
    assert analyse("学习").short == ("学习",)
    assert analyse("the").match == ("the",)  # only stop words: searched as typed
    assert stem("budgets") == "budget" and stem("speed") == "speed"


def test_fusion_rewards_passages_found_by_several_lists() -> None:
    fused = fuse({"lexical": [1, 2, 3], "dense": [3, 4]})
    assert [seq for seq, _, _ in fused][:2] == [3, 1]
    assert fused[0][2] == {"lexical": 3, "dense": 1}
    assert abs(fused[0][1] - (1 / 63 + 1 / 61)) < 1e-12


def test_vectors_are_normalised_and_the_scan_finds_the_nearest() -> None:
    blob = pack([3.0, 4.0])
    assert list(unpack(blob)) == [0.6000000238418579, 0.800000011920929]
    vectors = {n: pack([1.0, n / 10, -1.0 if n % 2 else 1.0]) for n in range(1, 30)}
    query = pack([1.0, 0.5, 1.0])
    index = SignatureIndex(1, list(vectors), [signature(v) for v in vectors.values()])
    candidates = index.candidates(signature(query), count=10)
    assert all(seq % 2 == 0 for seq in candidates)  # the same signs first
    best = rescore(query, {seq: vectors[seq] for seq in candidates}, 3)
    assert best[0][0] == 6


def test_plan_keeps_the_rarest_terms_within_the_budget() -> None:
    terms = analyse("return value of the socket timeout since")
    stats = TermStats(
        total=100_000,
        frequency={
            "return": 85_000,
            "value": 53_000,
            "socket": 9_000,
            "since": 18_000,
            "timeout": 0,
        },
    )
    steps = plan(terms, stats)
    assert steps.ranked == ("socket",) and steps.window == ()  # 9k + 18k > 20k
    assert set(steps.dropped) == {"return", "value", "since"}  # "timeout" cannot match at all
    common_only = plan(analyse("return value"), stats)
    assert common_only.ranked == () and common_only.window == ("value",)
    small = TermStats(total=1_500, frequency={"return": 1_400, "value": 900})
    assert plan(analyse("return value"), small).ranked == ("return", "value")
    assert plan(analyse("xqzv"), TermStats(total=10, frequency={"xqzv": 0})) == type(steps)()


def test_plan_expands_short_terms_and_backs_off_to_bigrams() -> None:
    stats = TermStats(total=10, expansions={"学习": (("学习。", 3), ("学习的", 2))})
    steps = plan(analyse("学习"), stats)
    assert steps.short == ("学习。", "学习的") and steps.ranked == ()
    assert plan(analyse("学习"), TermStats(total=10)).short == ()
    terms = analyse("龙井茶产自哪里？")
    missing = TermStats(total=10, frequency={"龙井茶": 0, "井茶产": 0, "茶产自": 0})
    assert backoff_terms(terms, missing) == ("龙井", "井茶", "茶产", "产自")
    partly = TermStats(total=10, frequency={"龙井茶": 0, "井茶产": 0, "茶产自": 4})
    assert backoff_terms(terms, partly) == ("龙井", "井茶", "茶产", "产自")
    present = TermStats(total=10, frequency={"龙井茶": 1, "井茶产": 1, "茶产自": 1})
    assert backoff_terms(terms, present) == ()


def test_snippet_shows_where_most_terms_meet() -> None:
    text = "socket " + "filler words here " * 30 + "a socket with a timeout set " + "tail " * 40
    snippet, spans = passage_snippet(text, ["socket", "timeout"])
    assert "socket with a timeout" in snippet and snippet.startswith("…")
    assert len(snippet) <= 202
    assert [snippet[a:b] for a, b in spans] == ["socket", "timeout"]
    assert passage_snippet("short text", ["none"]) == ("short text", ())
