"""Import of conversations (PRODUCT.md §9): Mira's own JSON export
(``mira.thread``, which round-trips; a ZIP of them brings the attachments'
files back, ``zip_files``) and ChatGPT's ``conversations.json`` (with its
branch trees; the ZIP ChatGPT mails brings the questions' pictures,
``chatgpt_files``). :class:`ImportService` detects the kind, checks the whole
file first, and writes everything in one transaction."""

from .service import ImportFormat, ImportProgress, ImportReport, ImportService

__all__ = ["ImportFormat", "ImportProgress", "ImportReport", "ImportService"]
