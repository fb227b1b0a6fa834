"""Room in the model's window during an agent's answer (PRODUCT.md §11): every
round sends the tool results so far again, and a few large reads fill a
small local model's window. Once the results together pass a budget (from
the model's context window when it is known), the oldest are shortened to
their beginning — never those of the round that just ran — with a note that
the tool can be called again."""

from __future__ import annotations

from dataclasses import replace

from ...core.models import ChatMessage

#: characters kept of an older tool result once the results are over budget
KEPT = 1_500
#: the budget (characters of tool results) when the model's window is unknown
DEFAULT_BUDGET = 100_000
#: characters of tool results per token of the model's window (about half of it)
CHARS_PER_WINDOW_TOKEN = 2


def budget_for(context_window: int | None) -> int:
    """Characters of tool results an answer keeps whole for a model."""
    if not context_window:
        return DEFAULT_BUDGET
    return max(8_000, context_window * CHARS_PER_WINDOW_TOKEN)


def make_room(messages: list[ChatMessage], budget: int, keep_last: int) -> int:
    """Shorten the oldest tool results in ``messages`` (in place), sparing the
    last ``keep_last`` of them, until all fit ``budget`` characters. Returns
    how many were shortened."""
    results = [i for i, m in enumerate(messages) if m.role == "tool"]
    total = sum(len(messages[i].content) for i in results)
    shortened = 0
    for index in results[: max(0, len(results) - keep_last)]:
        if total <= budget:
            break
        content = messages[index].content
        if len(content) <= KEPT + 200:
            continue
        cut = len(content) - KEPT
        note = f"\n[… {cut:,} characters cut to leave room; call the tool again if you need them]"
        messages[index] = replace(messages[index], content=content[:KEPT] + note)
        total -= cut - len(note)
        shortened += 1
    return shortened
