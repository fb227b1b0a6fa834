"""Showing text from elsewhere — a model's answer or title, a provider's
error page, a model name — as written, never as markup.

Qt guesses: a label with the default ``AutoText`` and every tooltip render
text that looks like HTML (``Qt.mightBeRichText``) as rich text, so a 502
page's ``<h1 style="font-size:80px">`` would blow up the layout and hide the
words around it. Labels showing such text use ``PlainText``; tooltips, which
have no format switch, get the text escaped into rich text that shows it
literally. A long text (a title the user made 500 characters long) goes the
same way: Qt wraps a rich tooltip, while a plain one is one line as wide as
the text, past the screen's edge."""

from __future__ import annotations

from PySide6.QtGui import Qt

#: a tooltip longer than this many characters is wrapped (see the docstring)
WRAP_TOOLTIP_ABOVE = 80


def plain_tooltip(text: str | None) -> str:
    """``text`` for ``setToolTip`` or a model's tooltip role, shown as written."""
    if not text or (len(text) <= WRAP_TOOLTIP_ABOVE and not Qt.mightBeRichText(text)):
        return text or ""
    return Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
