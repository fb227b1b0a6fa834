"""The ``data["kind"]`` values of special messages, in a module of constants
only: the timeline recognises a compaction card at start-up without importing
``core.context`` and its value types (``core.context`` re-exports them)."""

from __future__ import annotations

#: ``data["kind"]`` of a "Context compressed" card (a compaction checkpoint).
COMPACTION_KIND = "compaction"
