"""``ExportService``: every export the window's menus and the CLI offer
(PRODUCT.md §9) — a thread as Markdown / HTML / JSON (text or file), the
clipboard's Markdown, the print variant of the HTML, a batch ZIP with
progress and cancellation, and one assistant message as ``.md`` (download, or
saved into the workspace's root folder).

Reads go through the database thread; rendering and file writing run in
worker threads, so the Qt thread never waits. Progress callbacks are called
on the event loop's thread (safe for Qt signals)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ... import __version__
from ...core.errors import ConfigError, StorageError
from ...core.ids import utc_now
from ...core.transfer import ThreadSnapshot
from .diagnostics import ExportMeta
from .files import message_filename, thread_filename, write_new_file
from .html import thread_html
from .html_render import MarkdownRenderer
from .json_format import thread_document, thread_json
from .markdown import message_markdown, thread_markdown
from .zip_export import ExportProgress, ZipExportResult, write_zip

if TYPE_CHECKING:
    from ...storage.export_store import ExportStore

log = logging.getLogger(__name__)


class ExportFormat(StrEnum):
    MARKDOWN = "md"
    HTML = "html"
    JSON = "json"


class CancelToken(Protocol):
    """Anything with ``is_set()``: ``threading.Event`` or ``asyncio.Event``."""

    def is_set(self) -> bool: ...


ProgressCallback = Callable[[ExportProgress], Any]


def _format(value: ExportFormat | str) -> ExportFormat:
    try:
        return ExportFormat(str(value).lower().lstrip("."))
    except ValueError:
        raise ConfigError(
            f"Unknown export format {value!r}.", hint="Use md, html or json."
        ) from None


def _write_atomic(path: Path, text: str) -> Path:
    part = path.with_name(f".{path.name}.part")
    try:
        part.write_text(text, encoding="utf-8", newline="\n")
        os.replace(part, path)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise _write_error(path, exc) from exc
    return path


def _write_error(path: Path, exc: OSError) -> StorageError:
    return StorageError(
        f"Cannot write {path}: {exc.strerror or exc}.",
        hint="Choose a folder you can write to, with free space.",
    )


class ExportService:
    def __init__(
        self,
        store: ExportStore,
        *,
        app_version: str = __version__,
        now: Callable[[], str] = utc_now,
    ) -> None:
        self._store = store
        self._app_version = app_version
        self._now = now

    def meta(self) -> ExportMeta:
        return ExportMeta(app_version=self._app_version, exported_at=self._now())

    def renderer(self, fmt: ExportFormat | str) -> Callable[[ThreadSnapshot], str]:
        """A blocking ``snapshot -> text`` function for one format (one job)."""
        meta, kind = self.meta(), _format(fmt)
        if kind is ExportFormat.MARKDOWN:
            return functools.partial(thread_markdown, meta=meta)
        if kind is ExportFormat.JSON:
            return functools.partial(thread_json, meta=meta)
        return functools.partial(
            thread_html, meta=meta, renderer=MarkdownRenderer(), images=self._store.media_bytes
        )

    # one thread -------------------------------------------------------------

    async def render(self, thread_id: str, fmt: ExportFormat | str) -> str:
        snapshot = await self._store.snapshot(thread_id)
        return await asyncio.to_thread(self.renderer(fmt), snapshot)

    async def thread_markdown(self, thread_id: str) -> str:
        return await self.render(thread_id, ExportFormat.MARKDOWN)

    async def clipboard_text(self, thread_id: str) -> str:
        """What "Copy to clipboard" copies: the thread's Markdown."""
        return await self.thread_markdown(thread_id)

    async def thread_html(self, thread_id: str, *, for_print: bool = False) -> str:
        """The self-contained page; ``for_print``: the variant for Qt printing."""
        snapshot = await self._store.snapshot(thread_id)
        return await asyncio.to_thread(
            thread_html, snapshot, self.meta(), for_print=for_print, images=self._store.media_bytes
        )

    async def thread_json(self, thread_id: str) -> str:
        return await self.render(thread_id, ExportFormat.JSON)

    async def thread_document(self, thread_id: str) -> dict[str, Any]:
        snapshot = await self._store.snapshot(thread_id)
        return await asyncio.to_thread(thread_document, snapshot, self.meta())

    async def suggested_filename(self, thread_id: str, fmt: ExportFormat | str) -> str:
        snapshot = await self._store.snapshot(thread_id)
        return thread_filename(snapshot.thread.title, snapshot.thread.id, _format(fmt).value)

    async def export_thread(self, thread_id: str, fmt: ExportFormat | str, path: Path) -> Path:
        """Write one thread to ``path`` (a file, replaced; or a folder: a new
        file named after the thread). Returns the file written."""
        kind = _format(fmt)
        snapshot = await self._store.snapshot(thread_id)
        text = await asyncio.to_thread(self.renderer(kind), snapshot)
        if path.is_dir():
            name = thread_filename(snapshot.thread.title, snapshot.thread.id, kind.value)
            return await asyncio.to_thread(_write_atomic, path / name, text)
        return await asyncio.to_thread(_write_atomic, path, text)

    async def write_text(self, path: Path, text: str) -> Path:
        """Write ``text`` to ``path`` whole or not at all (a full disk leaves
        the file that was there, never half of the new one)."""
        return await asyncio.to_thread(_write_atomic, path, text)

    # many threads -----------------------------------------------------------

    async def all_thread_ids(self, *, include_archived: bool = True) -> list[str]:
        """Every thread not in the trash (``export --all``), newest first."""
        return await self._store.thread_ids(include_archived=include_archived)

    async def export_zip(
        self,
        thread_ids: Sequence[str],
        target: Path,
        *,
        inner: ExportFormat | str = ExportFormat.MARKDOWN,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> ZipExportResult:
        """Write a ZIP with one ``inner``-format file per thread to ``target``.

        ``progress`` is called on the event loop's thread after each thread;
        setting ``cancel`` (or cancelling the awaiting task) stops between
        threads and removes the partial file. A cancelled export returns a
        result with ``cancelled=True`` and ``path=None``."""
        kind = _format(inner)
        ids = list(dict.fromkeys(thread_ids))
        if not ids:
            raise ConfigError("There is nothing to export.", hint="Select at least one thread.")
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def report(event: ExportProgress) -> None:
            if progress is not None:
                loop.call_soon_threadsafe(progress, event)

        job = functools.partial(
            self._zip_job, target, ids, kind, report, lambda: stop.is_set() or _set(cancel)
        )
        future = loop.run_in_executor(None, job)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()
            with contextlib.suppress(Exception):
                await asyncio.wait([future])
            raise

    def _zip_job(
        self,
        target: Path,
        ids: list[str],
        kind: ExportFormat,
        report: Callable[[ExportProgress], None],
        cancelled: Callable[[], bool],
    ) -> ZipExportResult:
        started = time.perf_counter()
        try:
            result = write_zip(
                target,
                ids,
                self._store.snapshots_sync,
                self.renderer(kind),
                kind.value,
                progress=report,
                cancelled=cancelled,
                media=self._store.media_bytes,
            )
        except OSError as exc:
            raise _write_error(target, exc) from exc
        seconds = time.perf_counter() - started
        log.info("zip export of %d thread(s) took %.2f s", result.exported, seconds)
        return ZipExportResult(
            result.path,
            result.exported,
            result.total,
            result.cancelled,
            seconds,
            result.attachments,
        )

    # one message ------------------------------------------------------------

    async def message_markdown(self, message_id: str) -> str:
        """One message as Markdown ("Download as .md")."""
        message = await self._store.message(message_id)
        snapshot = await self._store.snapshot(message.thread_id)
        return message_markdown(
            message,
            self.meta(),
            thread_title=snapshot.thread.title,
            attachments=snapshot.attachments.get(message.id, ()),
        )

    async def message_filename(self, message_id: str) -> str:
        """``chat-message-assistant-20261130-071230.md`` (local time of creation)."""
        message = await self._store.message(message_id)
        return message_filename(str(message.role), message.created_at)

    async def save_message_to_workspace(self, message_id: str) -> Path:
        """Write the message's Markdown into its workspace's root folder as
        ``chat-message-{role}-{timestamp}.md`` (``-2``, ``-3``… if taken; never
        replaces a file). Refuses when the workspace has no root folder."""
        message = await self._store.message(message_id)
        snapshot = await self._store.snapshot(message.thread_id)
        root = _workspace_root(snapshot)
        text = message_markdown(
            message,
            self.meta(),
            thread_title=snapshot.thread.title,
            attachments=snapshot.attachments.get(message.id, ()),
        )
        name = message_filename(str(message.role), message.created_at)
        try:
            path = await asyncio.to_thread(write_new_file, root, name, text)
        except OSError as exc:
            raise _write_error(root / name, exc) from exc
        log.info("saved message %s to %s", message_id, path)
        return path


def _set(token: CancelToken | None) -> bool:
    return token is not None and token.is_set()


def _workspace_root(snapshot: ThreadSnapshot) -> Path:
    name = snapshot.workspace_name or "this workspace"
    if not snapshot.workspace_root:
        raise ConfigError(
            f"The workspace “{name}” has no root folder to save into.",
            hint="Set a root folder for the workspace, or download the message as a .md file.",
        )
    root = Path(snapshot.workspace_root)
    if not root.is_dir():
        raise ConfigError(
            f"The root folder of “{name}” ({root}) does not exist any more.",
            hint="Choose the workspace's folder again, or download the message as a .md file.",
        )
    return root
