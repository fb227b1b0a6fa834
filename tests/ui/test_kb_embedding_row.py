"""The knowledge-base manager's embedding row proposes an embedding model
from the provider's list, or nothing: it used to propose the first chat
model ("llama-3.1-8b-instruct" beside Use)."""

from __future__ import annotations

from mira_desktop.core.knowledge import KnowledgeBase, KnowledgeBaseStats
from mira_desktop.core.models import ModelInfo
from mira_desktop.ui.kb.kb_embedding import EmbeddingRow

CHAT = [ModelInfo(name="llama-3.1-8b-instruct", provider_name="Local"), ModelInfo(name="qwen3:8b", provider_name="Local")]  # fmt: skip


def row(qtbot) -> EmbeddingRow:  # type: ignore[no-untyped-def]
    widget = EmbeddingRow()
    qtbot.addWidget(widget)
    widget.set_stats(KnowledgeBaseStats(KnowledgeBase(id="k", name="Docs")))
    return widget


def test_only_chat_models_propose_nothing(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = row(qtbot)
    widget.set_models(CHAT)
    assert widget.model_box.currentText() == ""
    assert widget.model_box.lineEdit().placeholderText() == "Embedding model"
    requested: list[tuple[str, str]] = []
    widget.apply_requested.connect(lambda p, m: requested.append((p, m)))
    widget.use_button.click()
    assert requested == []  # nothing chosen, nothing asked


def test_an_embedding_model_is_proposed_and_a_typed_one_kept(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = row(qtbot)
    widget.set_models([*CHAT, ModelInfo(name="nomic-embed-text", provider_name="Local")])
    assert widget.model_box.currentText() == "nomic-embed-text"
    widget.model_box.setEditText("bge-m3")
    widget.set_models([*CHAT, ModelInfo(name="nomic-embed-text", provider_name="Local")])
    assert widget.model_box.currentText() == "bge-m3"  # what the user typed stays
