"""ChatGPT ``conversations.json`` documents generated for the tests, in the
shape of ChatGPT's "Export data": ``mapping`` of nodes with ``parent`` /
``children``, ``message`` objects (``author.role``, ``content.content_type``,
``parts``, ``create_time``, ``metadata.model_slug``) or null, and
``current_node``."""

from __future__ import annotations

from typing import Any

T = 1_732_950_000.0  # 2024-11-30T07:00:00Z


class Conversation:
    """Builds one conversation node by node."""

    def __init__(self, conv_id: str | None, title: str, *, key: str = "id") -> None:
        self.data: dict[str, Any] = {
            "title": title,
            "create_time": T,
            "update_time": T + 600,
            "mapping": {},
            "current_node": None,
            "default_model_slug": "gpt-4o",
        }
        if conv_id is not None:
            self.data[key] = conv_id
        self.add("root", None, None)

    @property
    def mapping(self) -> dict[str, Any]:
        return self.data["mapping"]

    def add(self, node_id: str, parent: str | None, message: dict[str, Any] | None) -> str:
        self.mapping[node_id] = {
            "id": node_id,
            "message": message,
            "parent": parent,
            "children": [],
        }
        if parent is not None:
            self.mapping[parent]["children"].append(node_id)
        return node_id

    def say(
        self,
        node_id: str,
        parent: str,
        role: str,
        *parts: Any,
        at: float = 0,
        content_type: str = "text",
        model: str | None = None,
        **extra: Any,
    ) -> str:
        content: dict[str, Any] = {"content_type": content_type, **extra}
        if parts:
            content["parts"] = list(parts)
        message: dict[str, Any] = {
            "id": node_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": T + at if at is not None else None,
            "update_time": None,
            "content": content,
            "status": "finished_successfully",
            "metadata": {"model_slug": model} if model else {},
        }
        return self.add(node_id, parent, message)

    def current(self, node_id: str) -> Conversation:
        self.data["current_node"] = node_id
        return self


def branching() -> Conversation:
    """A conversation with an edited question, a regenerated answer, a system
    node, a null node, hidden context, thoughts, code, an image and unicode::

        root(null) ─ sys ─ ctx(hidden) ─ u1 ─ a1 ─ u2 ─ a2
                                         │    └─ a1b (regenerated) ─ u3 ─ th ─ a3 ◄ current
                                         └ u1b (edited) ─ code ─ out ─ a4
    """
    c = Conversation("conv-branching", "Branches 分支 🌳")
    c.say("sys", "root", "system", "You are ChatGPT.", at=1)
    c.say("ctx", "sys", "user", "custom instructions", at=2)
    c.mapping["ctx"]["message"]["metadata"]["is_visually_hidden_from_conversation"] = True
    c.say("u1", "ctx", "user", "你好！Explain recursion.", at=10)
    c.say("a1", "u1", "assistant", "Recursion is a function calling itself.", at=11, model="gpt-4o")
    c.say("u2", "a1", "user", "Example?", at=12)
    c.say(
        "a2",
        "u2",
        "assistant",
        "Factorial:\n\n```python\ndef f(n): return 1 if n < 2 else n * f(n - 1)\n```",
        at=13,
    )
    c.say("a1b", "u1", "assistant", "Second version: 递归。", at=20, model="gpt-4o-mini")
    c.say("u3", "a1b", "user", "Draw it", at=21)
    c.say(
        "th",
        "u3",
        "assistant",
        at=22,
        content_type="thoughts",
        thoughts=[{"summary": "Plan", "content": "Think about a tree picture."}],
    )
    c.say(
        "a3",
        "th",
        "assistant",
        "Here is a picture:",
        {
            "content_type": "image_asset_pointer",
            "asset_pointer": "file-service://file-XYZ",
            "width": 1024,
            "height": 768,
        },
        at=23,
        content_type="multimodal_text",
        model="gpt-4o",
    )
    c.say("u1b", "ctx", "user", "Explain recursion briefly (edited)", at=30)
    c.say(
        "code",
        "u1b",
        "assistant",
        at=31,
        content_type="code",
        language="python",
        text="print(sum(range(5)))",
    )
    c.mapping["code"]["message"]["recipient"] = "python"
    c.say("out", "code", "tool", at=32, content_type="execution_output", text="10")
    c.say("a4", "out", "assistant", "The sum is 10. ✅", at=33)
    return c.current("a3")


def went_on() -> Conversation:
    """``branching()`` as a later export has it, the conversation continued
    in ChatGPT: two more turns below ``a3``, the current node the last."""
    c = branching()
    c.say("u4", "a3", "user", "And a bigger one?", at=40)
    c.say("a5", "u4", "assistant", "Here is a bigger one.", at=41, model="gpt-4o")
    c.data["update_time"] = c.data["create_time"] + 3600
    return c.current("a5")


def odd() -> Conversation:
    """Odd but valid content: missing parts, empty text, a null message in the
    middle, unknown content, audio, a quote, a list part, no create_time."""
    c = Conversation(None, "", key="id")
    c.data["conversation_id"] = "conv-odd"
    c.data["title"] = None
    c.say("u1", "root", "user", "Hello\u200b world 🌍", at=5)
    c.say("empty", "u1", "assistant", "", at=6)
    c.say("noparts", "empty", "assistant", at=7)
    c.add("nullnode", "noparts", None)
    c.say("a1", "nullnode", "assistant", "Answer after odd nodes", None, at=8)
    c.say(
        "u2",
        "a1",
        "user",
        {"content_type": "audio_transcription", "text": "spoken words"},
        {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://audio1"},
        at=9,
        content_type="multimodal_text",
    )
    c.say("weird", "u2", "assistant", at=10, content_type="sonic_webpage")
    c.say(
        "quote",
        "weird",
        "tool",
        at=11,
        content_type="tether_quote",
        text="A quoted line",
        title="Source",
        url="https://example.com",
    )
    c.say("a2", "quote", "assistant", "Final 最终", at=None)
    c.mapping["a2"]["message"]["create_time"] = None
    return c.current("missing-node")


def system_only() -> Conversation:
    c = Conversation("conv-empty", "Nothing to see")
    c.say("sys", "root", "system", "You are ChatGPT.")
    return c.current("sys")
