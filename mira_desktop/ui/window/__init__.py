"""The main window: layout (main_window.py), the current conversation (conversation.py), remembered geometry (window_state.py)."""
