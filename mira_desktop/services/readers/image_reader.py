"""Images (PNG, JPG, WebP, GIF) through Pillow: the file must really be one of
those images and decode completely; the result carries the dimensions, the real
format and a PNG thumbnail of at most 256 px for the composer's chip."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from .document import DocumentRefusedError, Extracted, ImageInfo, refused, short_reason, unreadable

if TYPE_CHECKING:
    from PIL.Image import Image

log = logging.getLogger(__name__)

FORMAT_MIME = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
}
THUMBNAIL_SIZE = 256
#: Larger images are refused rather than decoded (a few MB of PNG can hold a
#: 30 000 × 30 000 single-colour picture that needs gigabytes in memory).
MAX_PIXELS = 64_000_000


def read_image(data: bytes, name: str, expected_mime: str) -> Extracted:
    from PIL import Image, UnidentifiedImageError

    try:
        probe = Image.open(io.BytesIO(data))
        fmt = probe.format or ""
        width, height = probe.size
        probe.verify()
    except Image.DecompressionBombError as exc:
        raise _too_many_pixels(name, "a huge number of") from exc
    except UnidentifiedImageError as exc:
        raise unreadable(name, "an image", "its content is not a known image format") from exc
    except (OSError, ValueError, SyntaxError) as exc:
        raise unreadable(name, "an image", short_reason(exc)) from exc
    _check_format(name, fmt)
    if width * height > MAX_PIXELS:
        raise _too_many_pixels(name, f"{width} × {height}")
    try:
        thumbnail = _thumbnail(Image.open(io.BytesIO(data)))
    except (OSError, ValueError, SyntaxError) as exc:  # truncated or corrupt pixel data
        raise unreadable(name, "an image", short_reason(exc)) from exc
    mime = FORMAT_MIME[fmt]
    notes = []
    if mime != expected_mime:
        notes.append(f"The file is a {fmt} image although its name suggests otherwise.")
    info = ImageInfo(width=width, height=height, format=fmt, thumbnail_png=thumbnail)
    return Extracted(image=info, mime=mime, warnings=tuple(notes))


def _check_format(name: str, fmt: str) -> None:
    if fmt not in FORMAT_MIME:
        raise refused(
            '"{name}" is a {format} image; Mira accepts PNG, JPG, WebP and GIF.',
            {"name": name, "format": fmt or "unknown"},
            "unsupported",
            "Convert it to PNG or JPG and attach it again.",
        )


def _thumbnail(image: Image) -> bytes:
    """Decode fully (a truncated file fails here), then shrink to a PNG."""
    from PIL import ImageOps

    image.load()
    try:
        image = ImageOps.exif_transpose(image)
    except (OSError, ValueError, SyntaxError, KeyError, TypeError):
        log.debug("ignoring unusable EXIF orientation", exc_info=True)
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA")  # palette transparency survives as alpha
    image.thumbnail((THUMBNAIL_SIZE, THUMBNAIL_SIZE))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _too_many_pixels(name: str, dimensions: str) -> DocumentRefusedError:
    return refused(
        '"{name}" has {dimensions} pixels, too many to open safely.',
        {"name": name, "dimensions": dimensions, "megapixels": MAX_PIXELS // 1_000_000},
        "oversized",
        "Resize it below {megapixels} megapixels and attach it again.",
    )
