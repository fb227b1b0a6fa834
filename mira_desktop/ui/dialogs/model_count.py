"""What Settings → Providers says once a model list came back: how many
models there are, or — none — what to do so that there are some (Ollama has
none until one is pulled; another server, until one is loaded or enabled).
The model picker and the composer say the same in their own places."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

TR_CONTEXT = "ProvidersTab"


def model_count_text(count: int, *, connected: bool) -> str:
    """ "Connected — 3 models available." (Test connection) or "Fetched 3
    models." (Fetch models, or the fetch after a provider was added)."""
    if connected:
        if count == 1:
            return QCoreApplication.translate(TR_CONTEXT, "Connected — 1 model available.")
        return QCoreApplication.translate(
            TR_CONTEXT, "Connected — {count} models available."
        ).format(count=count)
    if count == 1:
        return QCoreApplication.translate(TR_CONTEXT, "Fetched 1 model.")
    return QCoreApplication.translate(TR_CONTEXT, "Fetched {count} models.").format(count=count)


def no_models_text(name: str, kind: str) -> str:
    """The provider ``name`` (of ``kind``) answered with no model at all."""
    if kind == "ollama":
        text = QCoreApplication.translate(
            TR_CONTEXT,
            "“{name}” has no models yet. Pull one in a terminal (for example "
            "`ollama pull llama3.2`), then click Fetch models.",
        )
    else:
        text = QCoreApplication.translate(
            TR_CONTEXT,
            "“{name}” lists no models. Load or enable a model on the server, "
            "then click Fetch models.",
        )
    return text.format(name=name)
