"""Build step: render the app icon ``resources/icons/mira.svg`` into the PNG sizes desktops
want (``mira-<N>.png``, N = 16 … 512) with Qt's ``QSvgRenderer``, and a multi-size
``mira.ico`` for Windows (with Pillow). The results are small and committed, so a
plain ``pip install`` ships them; run this again after editing the SVG:

    python packaging/build.py icons
"""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

log = logging.getLogger("icons")

ROOT = Path(__file__).resolve().parent.parent
ICON_DIR = ROOT / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def render_png(svg: Path, size: int) -> bytes:
    """``svg`` rendered to a ``size``×``size`` PNG with a transparent background."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])  # QPainter on text needs one
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"not a valid SVG: {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG"):
        raise OSError(f"could not encode the {size}px icon")
    buffer.close()
    return bytes(data.data())


def build_icons(svg: Path = ICON_DIR / "mira.svg", out_dir: Path = ICON_DIR) -> list[Path]:
    """Write ``mira-<N>.png`` for every size and ``mira.ico``; return the written paths."""
    from PIL import Image

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    images: dict[int, Image.Image] = {}
    for size in SIZES:
        png = render_png(svg, size)
        path = out_dir / f"mira-{size}.png"
        path.write_bytes(png)
        written.append(path)
        images[size] = Image.open(io.BytesIO(png)).convert("RGBA")
        log.info("icon %s", path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    ico = out_dir / "mira.ico"
    # Pillow writes each size from the largest image unless given the exact bitmaps
    largest = images[max(ICO_SIZES)]
    largest.save(
        ico,
        format="ICO",
        sizes=[(s, s) for s in ICO_SIZES],
        append_images=[images[s] for s in ICO_SIZES if s != max(ICO_SIZES)],
    )
    written.append(ico)
    log.info("icon %s", ico.relative_to(ROOT) if ico.is_relative_to(ROOT) else ico)
    return written
