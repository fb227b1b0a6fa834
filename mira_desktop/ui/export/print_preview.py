"""Printing a thread: its print HTML (rendered off the loop by the export
service) laid out in a ``QTextDocument``, shown in a ``QPrintPreviewDialog``
or painted into PDF bytes. Painting needs the Qt thread; the PDF bytes are
written to disk off it by the caller."""

from __future__ import annotations

import logging

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF
from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument
from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)

#: page margins of printed threads, in millimetres (QTextDocument adds 2 cm)
MARGIN_MM = 5.0


def print_document(html: str, parent: QWidget | None = None) -> QTextDocument:
    """A text document holding ``html`` (parented, so it lives as long as ``parent``)."""
    document = QTextDocument(parent)
    document.setHtml(html)
    return document


def page_layout() -> QPageLayout:
    """A4 portrait with :data:`MARGIN_MM` margins."""
    margins = QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM)
    return QPageLayout(
        QPageSize(QPageSize.PageSizeId.A4),
        QPageLayout.Orientation.Portrait,
        margins,
        QPageLayout.Unit.Millimeter,
    )


def preview_dialog(html: str, title: str, parent: QWidget | None = None) -> QPrintPreviewDialog:
    """A print preview of ``html`` (not shown yet); its Print button prints."""
    dialog = QPrintPreviewDialog(parent)
    dialog.setObjectName("PrintPreviewDialog")
    dialog.setWindowTitle(title)
    dialog.printer().setPageLayout(page_layout())
    document = print_document(html, dialog)
    dialog.paintRequested.connect(lambda printer: _paint(document, printer))
    return dialog


def _paint(document: QTextDocument, printer: QPrinter) -> None:
    document.print_(printer)


def pdf_bytes(html: str, title: str = "") -> bytes:
    """``html`` laid out on A4 pages as a PDF (in memory)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(title)
    writer.setCreator("Mira Desktop")
    writer.setPageLayout(page_layout())
    document = print_document(html)
    document.print_(writer)
    del writer  # finishes the PDF into the buffer
    buffer.close()
    return bytes(data.data())
