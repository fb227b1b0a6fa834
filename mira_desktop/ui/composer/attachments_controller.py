"""``AttachmentsController``: the composer's chips and the files they hold
(PRODUCT.md §7).

Every way in — the file dialog, a drop, a pasted file or screenshot, an ``@``
pick — ends here: a chip appears at once in its *reading* state and the
``AttachmentService`` reads, validates and stores the file (in worker threads;
nothing is parsed on the Qt thread). A refused file loses its chip and the
reader's reason shows under the composer — also when preparing it failed in a
way nobody foresaw (a chip never stays *reading*, nor goes out unread). Removing a chip discards what it
holds (content nothing else uses is deleted at once). :meth:`take` hands the
ready files to a send and empties the strip; :meth:`restore` puts them back
(a draft that failed before its message was saved keeps its pending files)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDateTime, QObject, Signal
from PySide6.QtGui import QImage

from mira_desktop.core.audio_formats import AUDIO_TYPES
from mira_desktop.core.errors import MiraError
from mira_desktop.core.ids import new_id
from mira_desktop.ui.error_texts import error_line

from .attachment_strip import ChipInfo
from .file_drop import png_bytes

if TYPE_CHECKING:
    from mira_desktop.services.attachments import AttachmentService, PreparedAttachment

    from ..controllers.tasks import TaskRunner
    from .composer_widget import ComposerWidget

log = logging.getLogger(__name__)

#: characters of an audio file's transcript in its chip's tooltip
PREVIEW_CHARS = 240
_BADGES = {"pdf": "PDF", "docx": "DOC", "pptx": "PPT", "xlsx": "XLS", "text": "TXT", "audio": "AUD"}


def chip_info(prepared: PreparedAttachment) -> ChipInfo:
    """What the chip of a prepared file shows."""
    from mira_desktop.services.readers.document import human_size  # with the first file

    document = prepared.document
    size = human_size(prepared.attachment.size)
    if document.image is not None:
        image = document.image
        detail = f"{image.format} · {image.width}×{image.height} · {size}"
        return ChipInfo(prepared.name, detail, image.format, image.thumbnail_png)
    badge = _BADGES.get(document.kind, document.kind.upper()[:4])
    suffix = Path(prepared.name).suffix.lstrip(".").upper()
    if document.kind in ("text", "audio") and suffix and len(suffix) <= 4:
        badge = suffix
    preview = ""
    if document.kind == "audio":
        text = " ".join(document.text.split())
        preview = text[:PREVIEW_CHARS] + "…" if len(text) > PREVIEW_CHARS else text
    return ChipInfo(prepared.name, f"{badge} · {size}", badge, preview=preview)


def is_audio(name: str) -> bool:
    """A file that is attached as what is said in it."""
    return Path(name).suffix.lower() in AUDIO_TYPES


class AttachmentsController(QObject):
    """Signal: ``changed()`` when the set of ready files changed (the meter)."""

    changed = Signal()

    def __init__(
        self,
        composer: ComposerWidget,
        service: AttachmentService,
        tasks: TaskRunner,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._composer = composer
        self._service = service
        self._tasks = tasks
        self._ready: dict[str, PreparedAttachment] = {}
        # files being read, and why files of this batch were refused: several
        # files dropped at once each say why (one line each), until the next
        # batch or a send
        self._reading: set[str] = set()
        self._refusals: list[str] = []
        composer.files_chosen.connect(self.add_paths)
        composer.image_pasted.connect(self.add_image)
        composer.attachment_remove_requested.connect(self.remove)

    # ---- adding --------------------------------------------------------------------
    def add_paths(self, paths: Iterable[str]) -> None:
        for path in paths:
            self._start(Path(path).name, self._service.prepare(path))

    def add_image(self, image: QImage) -> None:
        """A pasted or dropped image without a file: stored as PNG."""
        stamp = QDateTime.currentDateTime().toString("yyyyMMdd-HHmmss")
        name = f"pasted-image-{stamp}.png"
        copy = image.copy()

        async def prepare() -> PreparedAttachment:
            data = await asyncio.to_thread(png_bytes, copy)
            return await self._service.prepare_data(data, name)

        self._start(name, prepare())

    def add_workspace_file(self, root: str, relative: str) -> None:
        """A file picked in the ``@`` popup."""
        self._start(Path(relative).name, self._service.prepare_workspace_file(root, relative))

    def _start(self, name: str, work: Coroutine[Any, Any, PreparedAttachment]) -> None:
        key = new_id()
        self._composer.strip.add_chip(key, name, audio=is_audio(name))
        if not self._reading:  # a new batch: the last one's refusals are old news
            self._show_refusals([])
        self._reading.add(key)
        # keyed: a chip removed while it is read stops its reading (an audio
        # file is then not sent to be written down)
        self._tasks.start(self._prepare(key, name, work), key=f"attachment:{key}")

    async def _prepare(
        self, key: str, name: str, work: Coroutine[Any, Any, PreparedAttachment]
    ) -> None:
        strip = self._composer.strip
        try:
            prepared = await work
        except MiraError as exc:
            log.info("attachment refused: %s", exc.message)
            strip.remove_chip(key)
            self._show_refusals([*self._refusals, error_line(exc)])
            return
        except Exception as exc:  # a bug: the file is refused all the same, never left reading
            log.error("attaching %s failed", name, exc_info=exc)
            strip.remove_chip(key)
            line = self.tr('"{name}" could not be attached: {error}').format(
                name=name, error=str(exc) or type(exc).__name__
            )
            self._show_refusals([*self._refusals, line])
            return
        finally:
            self._reading.discard(key)
        if strip.chip(key) is None:  # removed while it was being read
            await self._service.discard(prepared)
            return
        self._ready[key] = prepared
        strip.set_ready(key, chip_info(prepared))
        self.changed.emit()

    # ---- removing, sending, restoring ------------------------------------------------
    def remove(self, key: str) -> None:
        """✕ on a chip: the file it holds is discarded; one still being read
        stops being read."""
        self._composer.strip.remove_chip(key)
        if key in self._reading:
            self._tasks.cancel(f"attachment:{key}")
        prepared = self._ready.pop(key, None)
        if prepared is not None:
            self._tasks.start(self._service.discard(prepared))
            self.changed.emit()

    def prepared(self) -> tuple[PreparedAttachment, ...]:
        """The ready files, in chip order."""
        return tuple(self._ready[k] for k in self._composer.strip.chip_keys() if k in self._ready)

    def _show_refusals(self, lines: list[str]) -> None:
        self._refusals = lines
        self._composer.set_attach_error("\n".join(lines))

    def take(self) -> tuple[PreparedAttachment, ...]:
        """Hand the ready files to a send: the strip empties, nothing is
        discarded, and the refusals of files not sent are cleared."""
        self._show_refusals([])
        taken = self.prepared()
        for key in list(self._ready):
            self._composer.strip.remove_chip(key)
            del self._ready[key]
        if taken:
            self.changed.emit()
        return taken

    def restore(self, prepared: Iterable[PreparedAttachment]) -> None:
        """Put files back as ready chips (a send that did not happen)."""
        held = {p.pending_id for p in self._ready.values()}
        added = False
        for item in prepared:
            if item.pending_id in held:
                continue
            key = new_id()
            self._composer.strip.add_chip(key, item.name, audio=is_audio(item.name))
            self._composer.strip.set_ready(key, chip_info(item))
            self._ready[key] = item
            added = True
        if added:
            self.changed.emit()

    def discard_all(self) -> None:
        for key in list(self._composer.strip.chip_keys()):
            self.remove(key)
