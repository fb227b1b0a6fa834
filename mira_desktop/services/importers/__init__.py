"""Import of conversations (PRODUCT.md §9): Mira's own JSON export
(``mira.thread``, which round-trips) and ChatGPT's ``conversations.json``
(with its branch trees). :class:`ImportService` detects the kind, checks the
whole file first, and writes everything in one transaction."""

from .service import ImportFormat, ImportProgress, ImportReport, ImportService

__all__ = ["ImportFormat", "ImportProgress", "ImportReport", "ImportService"]
