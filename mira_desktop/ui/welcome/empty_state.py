"""First-start panel shown while no provider is configured: a short welcome, a button
that looks for Ollama on this computer (through an injected async probe, asked for the
address ``OLLAMA_HOST`` names, which the status line shows) and one that opens the
provider form.

Emits intents only — ``detect_requested()``, ``add_provider_requested()`` and, after a
successful detection, ``add_ollama_requested()`` — the window decides what they do.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from PySide6.QtCore import QEvent, QMargins, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from mira_desktop.services.ollama_host import ollama_address, ollama_url
from mira_desktop.ui.theme import set_style_property

log = logging.getLogger(__name__)

#: the probe: whether Ollama answers at the base URL given
DetectOllama = Callable[[str], Awaitable[bool]]


class EmptyStateWidget(QWidget):
    """Signals: ``detect_requested()``, ``add_provider_requested()``,
    ``add_ollama_requested()``."""

    detect_requested = Signal()
    add_provider_requested = Signal()
    add_ollama_requested = Signal()

    def __init__(
        self,
        detect: DetectOllama | None = None,
        parent: QWidget | None = None,
        *,
        locate: Callable[[], str] = ollama_url,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("EmptyState")
        self._detect = detect
        self._locate = locate  # where Ollama listens (OLLAMA_HOST, read at each look)
        self._address = ollama_address(locate())
        self._state = "idle"  # idle | busy | found | missing | error
        self._error = ""
        self._tasks: set[asyncio.Task[bool]] = set()
        self.title_label = QLabel(self)
        self.title_label.setObjectName("WelcomeTitle")
        self.body_label = QLabel(self)
        self.body_label.setObjectName("WelcomeSubtitle")
        self.body_label.setWordWrap(True)
        self.detect_button = QPushButton(self)
        self.detect_button.setProperty("primary", True)
        self.add_button = QPushButton(self)
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)
        self.add_ollama_button = QPushButton(self)
        self.add_ollama_button.setProperty("primary", True)
        self._build_layout()
        self.detect_button.clicked.connect(self._on_detect_clicked)
        self.add_button.clicked.connect(self.add_provider_requested)
        self.add_ollama_button.clicked.connect(self.add_ollama_requested)
        self._retranslate()

    def _build_layout(self) -> None:
        card = QFrame(self)
        card.setObjectName("EmptyStateCard")
        # at most 540 px, narrower in a narrow window (it made the window's
        # minimum 900 px); the wrapped text takes its height from the width
        card.setMaximumWidth(540)
        card.setMinimumWidth(320)
        inner = QVBoxLayout(card)
        inner.setContentsMargins(32, 28, 32, 28)
        inner.setSpacing(14)
        inner.addWidget(self.title_label)
        inner.addWidget(self.body_label)
        buttons = QHBoxLayout()
        buttons.setSpacing(10)
        buttons.addWidget(self.detect_button)
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        inner.addLayout(buttons)
        inner.addWidget(self.status_label)
        inner.addWidget(self.add_ollama_button, 0, Qt.AlignmentFlag.AlignLeft)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.addStretch(1)
        outer.addWidget(card, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(2)

    async def run_detection(self) -> bool:
        """Probe for Ollama and show the outcome; returns whether it was found."""
        self.detect_requested.emit()
        if self._detect is None:
            return False
        url = self._locate()
        self._address = ollama_address(url)  # the status line names what is tried
        self._set_state("busy")
        try:
            found = await self._detect(url)
        except Exception as exc:  # a probe failure is an answer for the user, not a crash
            log.warning("Ollama detection failed: %s", exc)
            self._error = str(exc)
            self._set_state("error")
            return False
        self._set_state("found" if found else "missing")
        return found

    def _on_detect_clicked(self) -> None:
        if self._detect is None:
            self.detect_requested.emit()
            return
        task = asyncio.get_running_loop().create_task(self.run_detection())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _set_state(self, state: str) -> None:
        self._state = state
        self._retranslate()

    def _retranslate(self) -> None:
        self.title_label.setText(self.tr("Welcome to Mira"))
        self.body_label.setText(
            self.tr(
                "Mira keeps every conversation on this computer. Connect a model to start: "
                "a local one through Ollama or LM Studio, or a cloud provider with an API key."
            )
        )
        self.detect_button.setText(self.tr("Detect Ollama on this computer"))
        self.add_button.setText(self.tr("Add a provider…"))
        self.add_ollama_button.setText(self.tr("Add Ollama"))
        busy = self._state == "busy"
        self.detect_button.setEnabled(not busy)
        messages = {
            "busy": (
                self.tr("Looking for Ollama at {address}…").format(address=self._address),
                "busy",
            ),
            "found": (self.tr("Ollama is running on this computer."), "ok"),
            "missing": (
                self.tr(
                    "Ollama was not found at {address}. Install it from ollama.com and "
                    "start it, or add another provider."
                ).format(address=self._address),
                "error",
            ),
            "error": (
                self.tr("Could not check for Ollama: {error}").format(error=self._error),
                "error",
            ),
        }
        text, status = messages.get(self._state, ("", ""))
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))
        set_style_property(self.status_label, "status", status)
        self.add_ollama_button.setVisible(self._state == "found")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        if event.type() in (
            QEvent.Type.LanguageChange,
            QEvent.Type.StyleChange,
            QEvent.Type.FontChange,
        ):
            self._fit_text()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_text()

    def _fit_text(self) -> None:
        """Wrapped labels in a fixed-width card: give each the height its text
        needs at that width (the style sheet may change fonts after layout)."""
        for label in (self.body_label, self.status_label):
            card = label.parentWidget()  # the card of ``_build_layout``
            if card is None:
                continue
            card_layout = card.layout()
            margins = card_layout.contentsMargins() if card_layout is not None else QMargins()
            width = card.width() - margins.left() - margins.right()
            label.setMinimumHeight(label.heightForWidth(max(width, 100)) if label.text() else 0)
