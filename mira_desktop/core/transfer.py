"""Value types of export and import (PRODUCT.md §9): a whole thread as storage
reads it for an export (:class:`ThreadSnapshot`: every message of the tree,
trashed ones included, with attachment metadata), a thread an importer wants
written (:class:`ThreadImport`), and what an import did
(:class:`ImportedThread`, :class:`UpdatedThread`, :class:`SkippedThread`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .models import Message, Thread

#: ``Message.data`` of an imported message: the id of what it was in its
#: source (a ChatGPT node's id; ``id#2`` for a node's second picture), so a
#: newer export of the conversation adds only what is not here yet
SOURCE_NODE = "source_node"
#: … and true on the message the import made the thread's active leaf (the
#: next import moves the leaf on only while the user has not chosen another)
SOURCE_CURRENT = "source_current"


@dataclass(frozen=True, slots=True)
class AttachmentRecord:
    """An attachment as exports describe it: metadata, never the bytes.
    ``available`` is false when the content is not in this media store (an
    imported thread whose files stayed on another machine)."""

    name: str
    mime: str
    sha256: str
    size: int
    kind: str = "file"  # "image" | "file"
    available: bool = True
    #: what an audio file says, as written down when it was attached
    transcript: str | None = None


@dataclass(frozen=True, slots=True)
class ThreadSnapshot:
    """One thread with its whole message tree, for export. ``messages`` are in
    creation order (a parent before its children) and include trashed ones."""

    thread: Thread
    source_ref: str | None = None
    workspace_name: str = ""
    workspace_root: str | None = None
    provider_name: str | None = None
    role_name: str | None = None
    messages: tuple[Message, ...] = ()
    attachments: Mapping[str, tuple[AttachmentRecord, ...]] = field(default_factory=dict)
    #: the name of the knowledge base the thread is bound to (``thread.kb_id``)
    kb_name: str | None = None


@dataclass(frozen=True, slots=True)
class AssetRef:
    """A file an imported message names but its file did not hold (a ChatGPT
    image's asset pointer, ``file-service://file-…``), and the placeholder
    that stands for it in the message's text until the file is found."""

    pointer: str
    placeholder: str
    #: what the export says of a generated picture: its prompt and size
    prompt: str = ""
    width: int = 0
    height: int = 0


@dataclass(frozen=True, slots=True)
class ThreadImport:
    """A thread an importer asks storage to write. Ids are proposals: storage
    keeps them when free and remaps them consistently otherwise.
    ``workspace_name`` picks (or creates) the workspace unless the import names
    one; ``provider_name`` / ``role_name`` are linked when they exist here;
    the knowledge base by ``kb_id`` (the exporting library's), else by
    ``kb_name``, when one exists here (else the thread is left unbound)."""

    thread: Thread
    source_ref: str | None = None
    workspace_name: str | None = None
    provider_name: str | None = None
    role_name: str | None = None
    messages: tuple[Message, ...] = ()
    attachments: Mapping[str, tuple[AttachmentRecord, ...]] = field(default_factory=dict)
    #: files named by messages, to look for beside the export (by message id)
    assets: Mapping[str, tuple[AssetRef, ...]] = field(default_factory=dict)
    kb_id: str | None = None
    kb_name: str | None = None


@dataclass(frozen=True, slots=True)
class ImportedThread:
    id: str
    title: str
    message_count: int
    source_ref: str | None = None
    original_id: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "messages": self.message_count,
            "source_ref": self.source_ref,
            "original_id": self.original_id,
        }


@dataclass(frozen=True, slots=True)
class UpdatedThread:
    """A thread imported before that a newer export of its conversation added
    ``new_messages`` to (turns and branches that went on in the source)."""

    id: str
    title: str
    new_messages: int
    source_ref: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "messages": self.new_messages,
            "source_ref": self.source_ref,
        }


@dataclass(frozen=True, slots=True)
class SkippedThread:
    title: str
    reason: str
    source_ref: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"title": self.title, "reason": self.reason, "source_ref": self.source_ref}
