"""Right-click menus made afresh for each click (a sidebar thread's, a
workspace's) and parented to a long-lived widget: without care each one
stays a hidden child of that widget — its actions, their lambdas and what
they hold — for as long as the window lives. :func:`one_at_a_time` makes
such a menu go when it closes, and the one before it go when it is
replaced."""

from __future__ import annotations

from typing import TypeVar

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

M = TypeVar("M", bound=QMenu)


def one_at_a_time(previous: QMenu | None, menu: M) -> M:
    """``menu``, deleted once it closes (Esc, a click outside or on one of
    its actions); ``previous`` — the last menu made for the same place —
    deleted now if it is still there (hidden another way, or never shown)."""
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    if previous is not None and previous is not menu and shiboken6.isValid(previous):
        previous.deleteLater()
    return menu
