"""Showing text from elsewhere — a model's answer or title, a provider's
error page, a model name — as written, never as markup.

Qt guesses: a label with the default ``AutoText`` and every tooltip render
text that looks like HTML (``Qt.mightBeRichText``) as rich text, so a 502
page's ``<h1 style="font-size:80px">`` would blow up the layout and hide the
words around it. Labels showing such text use ``PlainText``; tooltips, which
have no format switch, get the text escaped into rich text that shows it
literally."""

from __future__ import annotations

from PySide6.QtGui import Qt


def plain_tooltip(text: str | None) -> str:
    """``text`` for ``setToolTip`` or a model's tooltip role, shown as written."""
    if not text or not Qt.mightBeRichText(text):
        return text or ""
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
