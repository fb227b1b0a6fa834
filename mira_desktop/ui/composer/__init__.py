"""The message composer (input box, Send/Stop)."""

from mira_desktop.ui.composer.composer_widget import ComposerWidget, standard_reason

__all__ = ["ComposerWidget", "standard_reason"]
