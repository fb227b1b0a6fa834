"""What :class:`~.grouped_model.GroupedThreadModel` answers about a row: the
values the sidebar's delegate paints for a thread (``ThreadRow``) and the
item-data roles that read them (``ROW_ROLE`` the whole row, each role of
``ROW_FIELDS`` one of its fields), and the item flags (``ROW_FLAGS``)."""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import Qt

from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel


class ThreadRow(NamedTuple):
    """A thread row's painted values, read by the delegate in one ``data()``
    call (``RowRole``): each call crosses from Qt into Python, and the ~9 of
    them a row (each building a dict of every role) were a quarter of a
    scroll step. The single roles read the same values from it."""

    title: str
    updated: str | None  # deleted_at in the trash
    pinned: bool
    running: bool
    checked: bool | None  # None outside batch mode
    color: str | None  # the workspace's, in the "All" list


DISPLAY_ROLE = int(Qt.ItemDataRole.DisplayRole)
EDIT_ROLE = int(Qt.ItemDataRole.EditRole)
TOOLTIP_ROLE = int(Qt.ItemDataRole.ToolTipRole)
ID_ROLE, THREAD_ROLE = ThreadListModel.IdRole, ThreadListModel.ThreadRole
CHECKED_ROLE = int(Qt.ItemDataRole.UserRole) + 23
COLOR_ROLE = int(Qt.ItemDataRole.UserRole) + 24
ROW_ROLE = int(Qt.ItemDataRole.UserRole) + 25
#: the roles a ThreadRow holds, and where
ROW_FIELDS = {
    DISPLAY_ROLE: 0,
    ThreadListModel.TitleRole: 0,
    ThreadListModel.UpdatedRole: 1,
    ThreadListModel.PinnedRole: 2,
    ThreadListModel.RunningRole: 3,
    CHECKED_ROLE: 4,
    COLOR_ROLE: 5,
}


def _row_flags() -> dict[object, Qt.ItemFlag]:
    """Every row's possible flags, combined once (each ``|`` of Qt's flags is
    Python code, and a view asks every row it paints): a thread's by
    (editable, pinned: a drop target)."""
    flag = Qt.ItemFlag
    thread = flag.ItemIsEnabled | flag.ItemIsSelectable | flag.ItemIsDragEnabled
    flags: dict[object, Qt.ItemFlag] = {
        "drop": flag.ItemIsDropEnabled,
        "header": flag.ItemIsEnabled,
        "pinned header": flag.ItemIsEnabled | flag.ItemIsDropEnabled,
    }
    for editable in (False, True):
        for pinned in (False, True):
            value = thread | flag.ItemIsEditable if editable else thread
            flags[editable, pinned] = value | flag.ItemIsDropEnabled if pinned else value
    return flags


ROW_FLAGS = _row_flags()
