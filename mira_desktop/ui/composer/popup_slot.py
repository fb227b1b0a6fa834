"""``PopupSlot``: a suggestion controller's popup, built on first use.

The composer builds its ``@`` and ``/`` popups (``suggestion_popup``: a list
widget and its delegate) when one is first shown, not for the first frame; a
controller is given the popup or a function that builds it, and connects the
popup's ``chosen`` and ``dismissed`` when it gets it. Closing a popup that was
never built does nothing (it is not open)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .suggestion_popup import SuggestionPopup


class PopupSlot:
    def __init__(
        self,
        popup: SuggestionPopup | Callable[[], SuggestionPopup],
        on_chosen: Callable[[str], None],
        on_dismissed: Callable[[], None],
    ) -> None:
        self._source = popup
        self._on_chosen = on_chosen
        self._on_dismissed = on_dismissed
        self._popup: SuggestionPopup | None = None
        if not callable(popup):  # given the popup itself: connected now
            self.get()

    def get(self) -> SuggestionPopup:
        """The popup, built and connected on the first call."""
        if self._popup is None:
            source = self._source
            popup = source() if callable(source) else source
            popup.chosen.connect(self._on_chosen)
            popup.dismissed.connect(self._on_dismissed)
            self._popup = popup
        return self._popup

    def close(self) -> None:
        if self._popup is not None:
            self._popup.close_popup()
