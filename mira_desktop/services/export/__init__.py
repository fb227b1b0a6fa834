"""Export of threads and messages (PRODUCT.md §9): Markdown, self-contained
HTML (light and dark, safe links, printable), versioned JSON holding the whole
tree, and batch ZIPs — with diagnostics and secrets redacted. The service the
window and the CLI use is :class:`ExportService`; the modules beside it are the
pure renderers it runs in worker threads."""

from .diagnostics import ExportMeta
from .service import CancelToken, ExportFormat, ExportService
from .zip_export import ExportProgress, ZipExportResult

__all__ = [
    "CancelToken",
    "ExportFormat",
    "ExportMeta",
    "ExportProgress",
    "ExportService",
    "ZipExportResult",
]
