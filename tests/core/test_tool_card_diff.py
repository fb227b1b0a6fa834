"""A change's diff on its tool card (PRODUCT.md §11): kept whole up to a
large cap, and past it cut after a whole line with the lines left out
counted, so the card can say so; the count survives a reload."""

from __future__ import annotations

from mira_desktop.core.agent import CARD_DIFF_LIMIT, ToolCard, ToolStatus, cut_diff


def test_a_diff_is_kept_whole_up_to_the_cap() -> None:
    diff = "".join(f"+line {n}\n" for n in range(5_000))  # far past the old 20,000 characters
    assert cut_diff(diff) == (diff, 0)
    assert CARD_DIFF_LIMIT >= 2_000_000


def test_past_the_cap_whole_lines_are_kept_and_the_rest_counted() -> None:
    diff = "".join(f"+{n:04}\n" for n in range(100))  # 6 characters a line
    kept, cut = cut_diff(diff, limit=200)
    assert kept == diff[:198] and kept.endswith("\n")
    assert cut == 67 and kept.count("\n") + cut == 100
    kept, cut = cut_diff("x" * 50 + "\nend", limit=20)  # one huge line: cut inside it
    assert kept == "x" * 20 and cut == 2


def test_the_count_of_lines_not_kept_survives_a_reload() -> None:
    card = ToolCard("c1", "write", {}, "Create a.txt", ToolStatus.WAITING, diff="+a\n", diff_cut=9)
    assert card.to_dict()["diff_cut"] == 9
    assert ToolCard.from_dict(card.to_dict()) == card
    plain = ToolCard("c2", "write", {}, "Create b.txt", ToolStatus.DONE, diff="+b\n")
    assert "diff_cut" not in plain.to_dict()
    assert ToolCard.from_dict(plain.to_dict()).diff_cut == 0
