"""Sources read back from an answer's ``data["sources"]`` (PRODUCT.md §3,
knowledge-base chat): an imported or hand-edited thread may carry items that
are not quite sources. Reading them runs each time the answer is shown and on
every citation pass, so a bad item must be skipped or its bad field left
out — it used to raise ``ValueError`` and the answer did not show at all."""

from __future__ import annotations

from mira_desktop.core.knowledge import Source, sources_from_data

GOOD = {
    "number": 1,
    "document": "Farm report.pdf",
    "location": {"page": 3},
    "snippet": "Wheat yields rose",
    "highlights": [[0, 5]],
    "score": 0.9,
}


def test_malformed_items_are_skipped_and_bad_fields_left_out() -> None:
    data = [
        {"number": "x", "document": "no number"},
        {"number": None},
        {"number": True},
        "not a source",
        {**GOOD, "number": 2, "location": "abc"},
        {**GOOD, "number": 3, "highlights": [["a", "b"], [1, 4], [2], "zz"]},
        {**GOOD, "number": "4", "score": "high"},
        {**GOOD, "number": 5, "score": float("nan"), "location": ["page", 1]},
        GOOD,
    ]
    sources = sources_from_data(data)
    assert [s.number for s in sources] == [2, 3, 4, 5, 1]
    by_number = {s.number: s for s in sources}
    assert by_number[2].location == {} and by_number[2].label == ""
    assert by_number[3].highlights == ((1, 4),)
    assert by_number[4].score == 0.0 and by_number[4].document == "Farm report.pdf"
    assert by_number[5].score == 0.0 and by_number[5].location == {}
    assert by_number[1] == Source.from_data(by_number[1].to_data())
    assert by_number[1].label == "page 3" and by_number[1].highlights == ((0, 5),)


def test_a_list_that_is_not_one_reads_as_no_sources() -> None:
    assert sources_from_data({"number": 1}) == [] and sources_from_data(None) == []
