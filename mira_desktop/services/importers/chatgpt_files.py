"""The pictures of a ChatGPT export ZIP put back on their messages. ChatGPT's
``conversations.json`` names an uploaded or generated image by an asset
pointer (``file-service://file-AbC…``, ``sediment://file_00…``); the ZIP
ChatGPT mails holds the file beside it, named after the pointer's id
(``file-AbC…-IMG_1234.jpeg``, ``file_00…-<uuid>.png``, sometimes ``.dat``;
generated ones under ``dalle-generations/``). A file is taken when it starts
with the id and its bytes are a picture Mira shows (PNG, JPEG, GIF, WebP);
the message then carries it as an image and its text loses the placeholder.
A picture not found keeps its placeholder ("[Image not imported: …]"). A
question shows its pictures as after a send; a generated picture (DALL·E's
tool message, an answer's) is shown as an answer's picture Mira drew —
``data["image"]`` with its prompt and size, one per message (the importer
gives each further picture a message of its own).
Blocking reads: call from a worker thread, one after another."""

from __future__ import annotations

import bisect
import logging
import zipfile
from pathlib import Path, PurePosixPath

from ...core.transfer import AssetRef
from ..readers.registry import sniff

log = logging.getLogger(__name__)

#: largest picture read back from an export (bytes)
MAX_PICTURE = 64 * 1024 * 1024


def asset_id(pointer: str) -> str:
    """``file-AbC`` of ``file-service://file-AbC`` (the pointer's last part)."""
    return pointer.split("://", 1)[-1].strip().strip("/").rsplit("/", 1)[-1]


_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
}


def _named(name: str, mime: str) -> str:
    """``name`` with the extension its bytes call for (ChatGPT names some
    pictures ``….dat``): ``5f1c.dat`` holding a JPEG is ``5f1c.jpg``."""
    path = PurePosixPath(name)
    wanted = _EXTENSIONS.get(mime)
    if wanted is None or path.suffix.lower() in (wanted, ".jpeg" if wanted == ".jpg" else wanted):
        return name
    return path.stem + wanted


class ExportPictures:
    """The files of one ChatGPT export ZIP, found by asset id."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._archive = zipfile.ZipFile(path)
        self._names = sorted(
            ((PurePosixPath(info.filename).name, info) for info in self._archive.infolist()
             if not info.is_dir()),
            key=lambda named: named[0],  # two folders may hold the same name
        )  # fmt: skip
        self._keys = [name for name, _ in self._names]

    def find(self, ref: AssetRef) -> tuple[str, bytes, str] | None:
        """``(file name, bytes, MIME type)`` of the picture ``ref`` points to;
        None when the export does not hold it as a picture."""
        wanted = asset_id(ref.pointer)
        if not wanted:
            return None
        start = bisect.bisect_left(self._keys, wanted)
        for name, info in self._names[start:]:
            if not name.startswith(wanted):
                break
            if len(name) > len(wanted) and name[len(wanted)] not in "-._":
                continue  # file-AbC is not file-AbCd
            picture = self._picture(info)
            if picture is not None:
                data, mime = picture
                shown = name[len(wanted) :].lstrip("-_") or name
                return _named(shown if "." in shown else name, mime), data, mime
        return None

    def _picture(self, info: zipfile.ZipInfo) -> tuple[bytes, str] | None:
        if info.file_size > MAX_PICTURE:
            log.warning("%s: %s is too large to import", self._path, info.filename)
            return None
        try:
            data = self._archive.read(info)
        except Exception as exc:  # damaged, encrypted, unknown compression…
            log.warning("%s: cannot read %s (%s)", self._path, info.filename, exc)
            return None
        sniffed = sniff(data[:1024])
        if sniffed is None or sniffed[0] != "image":
            return None
        return data, sniffed[1]

    def close(self) -> None:
        self._archive.close()
