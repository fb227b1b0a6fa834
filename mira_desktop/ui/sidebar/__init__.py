"""The thread sidebar: lazy thread list model, its delegate and the sidebar widget."""

from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
from mira_desktop.ui.sidebar.thread_sidebar import ThreadSidebar

__all__ = ["ThreadListModel", "ThreadSidebar"]
