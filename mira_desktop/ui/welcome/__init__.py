"""Welcome panels: first start without a provider, and a new empty chat."""

from mira_desktop.ui.welcome.empty_state import EmptyStateWidget
from mira_desktop.ui.welcome.welcome_view import WelcomeView

__all__ = ["EmptyStateWidget", "WelcomeView"]
