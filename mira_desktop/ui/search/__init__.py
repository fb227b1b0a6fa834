"""The search dialog (Ctrl+K): full-text search over titles and messages."""

from mira_desktop.ui.search.search_dialog import SearchDialog

__all__ = ["SearchDialog"]
