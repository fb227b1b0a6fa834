"""Reasoning whose opening ``<think>`` the server never sent.

A model served with a chat template that writes ``<think>`` itself into the
prompt (DeepSeek-R1's distilled models, QwQ, on llama.cpp or vLLM without a
reasoning parser) streams its reasoning as plain answer text, then
``</think>``, then the answer. The stream cannot know it was reasoning until
the closing tag arrives, so the answer is sorted out once it has ended
(``chat_run``): what came before a lone ``</think>`` is the reasoning. A
``</think>`` after a ``<think>``, or after a backtick (an answer writing
about the tags, in code), is left as it is."""

from __future__ import annotations

CLOSE = "</think>"
OPEN = "<think>"


def split_unopened_think(text: str) -> tuple[str, str] | None:
    """``(reasoning, answer)`` when ``text`` starts with reasoning closed by a
    lone ``</think>``, else None."""
    at = text.find(CLOSE)
    if at < 0:
        return None
    before = text[:at]
    if OPEN in before or "`" in before or not before.strip():
        return None
    return before.strip(), text[at + len(CLOSE) :].lstrip()
