"""ToolCallCollector: the tool-call pieces of a stream, put together into whole
calls; arguments that are not a JSON object are reported, not guessed."""

from __future__ import annotations

import json

from mira_desktop.core.events import ToolCallCollector, ToolCallDelta
from mira_desktop.core.models import ToolCall


def collect(*deltas: ToolCallDelta) -> ToolCallCollector:
    collector = ToolCallCollector()
    for delta in deltas:
        collector.add(delta)
    return collector


def test_nothing_collected() -> None:
    collector = ToolCallCollector()
    assert not collector
    assert collector.calls() == [] and collector.malformed() == []


def test_fragments_are_joined_and_decoded() -> None:
    arguments = json.dumps({"path": "笔记/今天.md", "lines": [1, 2]}, ensure_ascii=False)
    collector = collect(
        ToolCallDelta(0, "call_x", "read"),
        *(ToolCallDelta(0, arguments=arguments[at : at + 4]) for at in range(0, len(arguments), 4)),
    )
    assert collector
    assert collector.calls() == [
        ToolCall("call_x", "read", {"path": "笔记/今天.md", "lines": [1, 2]})
    ]
    assert collector.malformed() == []


def test_parallel_calls_come_in_index_order() -> None:
    collector = collect(
        ToolCallDelta(1, "b", "ls"),
        ToolCallDelta(0, "a", "read"),
        ToolCallDelta(1, arguments='{"dir": '),
        ToolCallDelta(0, arguments='{"path": "x"}'),
        ToolCallDelta(1, arguments='"src"}'),
    )
    assert collector.calls() == [
        ToolCall("a", "read", {"path": "x"}),
        ToolCall("b", "ls", {"dir": "src"}),
    ]


def test_missing_id_and_name() -> None:
    collector = collect(ToolCallDelta(0, name="ls"), ToolCallDelta(3, call_id="", arguments="{}"))
    assert collector.calls() == [ToolCall("call_0", "ls", {}), ToolCall("call_3", "", {})]


def test_repeated_id_and_name_change_nothing() -> None:
    """Some servers repeat the id and name in every fragment."""
    collector = collect(
        ToolCallDelta(0, "a", "read", '{"path":'),
        ToolCallDelta(0, "a", "read", ' "x"}'),
    )
    assert collector.calls() == [ToolCall("a", "read", {"path": "x"})]


def test_a_new_call_under_a_used_index_starts_another() -> None:
    """Servers that number every call 0 send each one whole, with its own id."""
    collector = collect(
        ToolCallDelta(0, "a", "read", '{"path": "x"}'),
        ToolCallDelta(0, "b", "ls", "{}"),
        ToolCallDelta(0, None, "read", '{"path": "y"}'),  # no id: not a new call
    )
    assert collector.calls() == [ToolCall("a", "read", {"path": "x"}), ToolCall("b", "ls", {})]
    (bad,) = collector.malformed()
    assert bad == (ToolCall("b", "ls", {}), '{}{"path": "y"}')
    collector.add(ToolCallDelta(1, None, "grep", "{}"))
    assert [call.call_id for call in collector.calls()] == ["a", "b", "call_1"]


def test_empty_arguments_are_an_empty_object() -> None:
    collector = collect(ToolCallDelta(0, "a", "ls"), ToolCallDelta(1, "b", "ls", "  \n"))
    assert [call.arguments for call in collector.calls()] == [{}, {}]
    assert collector.malformed() == []


def test_arguments_that_are_not_an_object_are_reported() -> None:
    raws = ['{"path": "今', "[1, 2]", "42", "null", '"text"', "{} {}", "[" * 100_000]
    collector = collect(*(ToolCallDelta(n, f"c{n}", "read", raw) for n, raw in enumerate(raws)))
    assert [call.arguments for call in collector.calls()] == [{}] * len(raws)
    assert collector.malformed() == [
        (ToolCall(f"c{n}", "read", {}), raw) for n, raw in enumerate(raws)
    ]


def test_an_object_encoded_twice_is_accepted() -> None:
    twice = json.dumps(json.dumps({"path": "中.md"}))
    collector = collect(ToolCallDelta(0, "a", "read", twice))
    assert collector.calls() == [ToolCall("a", "read", {"path": "中.md"})]
    assert collector.malformed() == []
