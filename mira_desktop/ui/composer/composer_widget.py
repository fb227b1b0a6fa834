"""The composer: the box where a message is written, given its attachments and sent.

Owns the Send/Stop button, the disabled state with a visible reason, and what
sits around the text (``composer_edit.ComposerTextEdit`` owns the keyboard
contract: Enter sends, Shift+Enter breaks the line, an IME preedit owns Enter):
the attachment chips (``attachment_strip``), the paperclip button (the system
file dialog), drops onto the box, the inline reason a file was refused, the
confirm bar for a send that needs a word first (``confirm_bar``), the context
meter ring beside Send, the microphone (voice input: its states and the
``dictation_bar`` under the box), and the two suggestion popups (``@`` files,
``/`` commands) whose keys it routes first. It only emits intents
(``send_requested``, ``stop_requested``, ``files_chosen``, ``image_pasted``,
``attachment_remove_requested``, ``mic_clicked``,
``dictation_cancel_requested``); the window's actions decide what they do.
A send leaves the text in the box until the window takes it (``take_text``):
one it refuses keeps everything where it was typed. Enter while an answer is
running still emits ``send_requested``: PRODUCT.md §5 says the controller
then stops that answer and sends.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QIcon,
    QImage,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPixmap,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.ui.theme import set_style_property
from mira_desktop.ui.widgets.context_meter import ContextMeterWidget

from .attachment_strip import AttachmentStrip
from .composer_edit import MAX_LINES, MIN_LINES, ComposerTextEdit, PopupKeyFilter
from .confirm_bar import SendConfirmBar
from .dictation_bar import (
    DictationBar,
    busy_icon,
    microphone_icon,
    recording_icon,
    shortcut_text,
)
from .file_drop import FileDropFilter

if TYPE_CHECKING:
    from .suggestion_popup import SuggestionPopup

log = logging.getLogger(__name__)

__all__ = ["MAX_LINES", "MIN_LINES", "ComposerTextEdit", "ComposerWidget", "standard_reason"]

#: what the file dialog offers first (PRODUCT.md §7); everything else is one choice away
_PATTERNS = (
    "*.png *.jpg *.jpeg *.webp *.gif *.pdf *.docx *.pptx *.xlsx *.txt *.md *.markdown "
    "*.csv *.tsv *.json *.yaml *.yml *.toml *.ini *.cfg *.conf *.log *.xml *.html *.css "
    "*.py *.js *.ts *.tsx *.jsx *.java *.c *.h *.cpp *.hpp *.cs *.go *.rs *.rb *.php "
    "*.sh *.sql *.kt *.swift *.mp3 *.m4a *.wav *.ogg *.oga *.flac *.webm *.mpga *.mpeg"
)


_ATTACH_QSS = """
QToolButton#AttachButton, QToolButton#MicButton {
    border: none; background: transparent; padding: 5px; border-radius: 8px; }
QToolButton#AttachButton:hover, QToolButton#MicButton:hover { background: palette(midlight); }
"""


def standard_reason(kind: str) -> str:
    """Translated explanation for a common reason to disable the composer.

    ``kind``: "no_provider", "no_model", "no_models" (providers, but no
    model listed) or "question_pending"."""
    texts = {
        "no_provider": QCoreApplication.translate(
            "ComposerWidget", "Add a provider in Settings to start chatting"
        ),
        "no_model": QCoreApplication.translate(
            "ComposerWidget", "Choose a model above to start chatting"
        ),
        "no_models": QCoreApplication.translate(
            "ComposerWidget",
            "No models to chat with yet: fetch them in Settings → Providers",
        ),
        "question_pending": QCoreApplication.translate(
            "ComposerWidget", "Answer the questions above to continue"
        ),
    }
    return texts.get(kind, kind)


def paperclip_icon(colour: QColor, size: int = 18, ratio: float = 2.0) -> QIcon:
    """A paperclip drawn with the palette's text colour (no icon font needed)."""
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    path = QPainterPath(QPointF(9.5, 5.0))
    path.lineTo(9.5, 11.5)
    path.arcTo(QRectF(6.5, 10.0, 3.0, 3.0), 0, -180)
    path.lineTo(6.5, 3.5)
    path.arcTo(QRectF(6.5, 0.75, 5.5, 5.5), 180, -180)
    path.lineTo(12.0, 12.0)
    path.arcTo(QRectF(4.0, 8.0, 8.0, 8.0), 0, -180)
    path.lineTo(4.0, 6.0)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.translate(QPointF(size / 2, size / 2))
    painter.rotate(40)
    painter.scale(size / 18, size / 18)
    painter.translate(QPointF(-8, -8.5))
    pen = QPen(colour, 1.5)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.drawPath(path)
    painter.end()
    return QIcon(pixmap)


class ComposerWidget(QWidget):
    """Message input with chips, the paperclip, the meter ring and Send/Stop.
    Signals: ``send_requested(str)``, ``stop_requested()``, ``files_chosen(list)``,
    ``image_pasted(QImage)``, ``attachment_remove_requested(str)``,
    ``draft_changed()`` (text or chips changed), ``mic_clicked()``,
    ``dictation_cancel_requested()`` (Esc while dictating)."""

    send_requested = Signal(str)
    stop_requested = Signal()
    files_chosen = Signal(list)
    image_pasted = Signal(QImage)
    attachment_remove_requested = Signal(str)
    draft_changed = Signal()
    mic_clicked = Signal()
    dictation_cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self._running = False
        self._reason: str | None = None
        self._reason_kind: str | None = None  # as given: retranslated on a language change
        self._mic_state = "idle"  # "recording", "transcribing"
        self._mic_seconds = 0.0
        self.editor = ComposerTextEdit(self)
        self.send_button = QPushButton(self)
        self.send_button.setObjectName("SendButton")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.reason_label = QLabel(self)
        self.reason_label.setObjectName("ComposerReason")
        self.reason_label.setWordWrap(True)
        self.reason_label.hide()
        self._build_attachment_parts()
        self._build_layout()
        self._build_popups()
        self._connect()
        self._retranslate()
        self._update_button()

    def _build_attachment_parts(self) -> None:
        self.strip = AttachmentStrip(self)
        self.attach_button = QToolButton(self)
        self.attach_button.setObjectName("AttachButton")
        self.attach_button.setAutoRaise(True)
        self.attach_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.attach_button.setIconSize(QSize(18, 18))
        self.attach_button.setStyleSheet(_ATTACH_QSS)
        self.mic_button = QToolButton(self)
        self.mic_button.setObjectName("MicButton")
        self.mic_button.setAutoRaise(True)
        self.mic_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.mic_button.setIconSize(QSize(18, 18))
        self.mic_button.setStyleSheet(_ATTACH_QSS)
        self.dictation_bar = DictationBar(self)
        self.meter = ContextMeterWidget(self)
        self.confirm_bar = SendConfirmBar(self)
        self.attach_error = QLabel(self)
        self.attach_error.setObjectName("ComposerAttachError")
        self.attach_error.setWordWrap(True)
        self.attach_error.setTextFormat(Qt.TextFormat.PlainText)
        self.attach_error.setProperty("status", "error")
        self.attach_error.hide()
        self._drops = FileDropFilter(self)
        self._drops.watch(self)

    def _build_layout(self) -> None:
        self.frame = QFrame(self)
        self.frame.setObjectName("ComposerFrame")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.mic_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.editor, 1)
        row.addWidget(self.meter, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        inner = QVBoxLayout(self.frame)
        inner.setContentsMargins(8, 8, 8, 8)
        inner.setSpacing(6)
        inner.addWidget(self.strip)
        inner.addLayout(row)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 6, 16, 12)
        outer.setSpacing(6)
        outer.addWidget(self.reason_label)
        outer.addWidget(self.confirm_bar)
        outer.addWidget(self.frame)
        outer.addWidget(self.dictation_bar)
        outer.addWidget(self.attach_error)

    def _build_popups(self) -> None:
        """The key filter now; the popups (``suggestion_popup``) on first use."""
        self._popups: list[SuggestionPopup] = []
        self._popup_keys = PopupKeyFilter(self._popups, self)
        self.editor.installEventFilter(self._popup_keys)

    @property
    def command_popup(self) -> SuggestionPopup:
        """The ``/`` command menu (built on first use, with the ``@`` one)."""
        return self._ensure_popups()[0]

    @property
    def mention_popup(self) -> SuggestionPopup:
        """The ``@`` file search (built on first use, with the ``/`` one)."""
        return self._ensure_popups()[1]

    def _ensure_popups(self) -> list[SuggestionPopup]:
        if not self._popups:
            from .suggestion_popup import SuggestionPopup

            self._popups.append(SuggestionPopup(self.frame, "CommandPopup"))
            self._popups.append(SuggestionPopup(self.frame, "MentionPopup"))
        return self._popups

    def _close_popups(self) -> None:
        for popup in self._popups:  # none built: none open
            popup.close_popup()

    def _connect(self) -> None:
        self.editor.submitted.connect(self._submit)
        self.editor.escape_pressed.connect(self._on_escape)
        self.editor.textChanged.connect(self._on_text_changed)
        self.editor.focus_changed.connect(self._on_focus_changed)
        self.editor.files_pasted.connect(self.files_chosen)
        self.editor.image_pasted.connect(self.image_pasted)
        self._drops.files_dropped.connect(self.files_chosen)
        self._drops.image_dropped.connect(self.image_pasted)
        self.send_button.clicked.connect(self._on_button_clicked)
        self.attach_button.clicked.connect(self.choose_files)
        self.mic_button.clicked.connect(self.mic_clicked)
        self.strip.remove_requested.connect(self.attachment_remove_requested)
        self.strip.changed.connect(self._on_chips_changed)

    # ---- public API ---------------------------------------------------------
    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        """Replace the draft (e.g. restore it after a failed first send)."""
        self.editor.setPlainText(text)
        self.editor.moveCursor(QTextCursor.MoveOperation.End)

    def clear(self) -> None:
        self.editor.clear()

    def give_back(self, text: str) -> None:
        """Put back the text of a send that did not go, before any words typed
        since (both kept: the given-back text was written first)."""
        typed = self.text()
        merged = given_back(text, typed)
        if merged != typed:
            self.set_text(merged)

    def focus_input(self) -> None:
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def is_running(self) -> bool:
        return self._running

    def set_running(self, running: bool) -> None:
        """While an answer streams the button becomes Stop and Esc emits ``stop_requested``."""
        if running == self._running:
            return
        self._running = running
        set_style_property(self.send_button, "running", running)
        self._label_send_button()  # only the button: the rest of the texts did not change
        self._update_button()

    def enabled_reason(self) -> str | None:
        return self._reason

    def set_enabled_reason(self, reason: str | None) -> None:
        """Disable input with a visible explanation; ``None`` enables it again.
        ``reason``: a kind of :func:`standard_reason` ("no_provider", …),
        shown translated and translated again when the language changes, or
        text of the caller's own."""
        self._reason_kind = reason or None
        self._reason = standard_reason(reason) if reason else None
        disabled = self._reason is not None
        self.reason_label.setText(self._reason or "")
        self.reason_label.setVisible(disabled)
        self.editor.setReadOnly(disabled)
        self.editor.setEnabled(not disabled)
        self.attach_button.setEnabled(not disabled)
        self.mic_button.setEnabled(not disabled or self._mic_state != "idle")
        self._update_button()

    def set_attach_error(self, text: str) -> None:
        """Show why a file was refused under the box (``""`` hides it)."""
        self.attach_error.setText(text)
        self.attach_error.setVisible(bool(text))

    # ---- voice input ------------------------------------------------------------------
    def mic_state(self) -> str:
        return self._mic_state

    def set_mic_state(self, state: str, seconds: float = 0.0, level: float = 0.0) -> None:
        """The microphone as dictation goes: "idle", "recording" (with the
        time recorded and the voice's level, 0–1) or "transcribing"."""
        changed = state != self._mic_state
        self._mic_state, self._mic_seconds = state, seconds
        colour = self.palette().color(QPalette.ColorRole.ButtonText)
        if state == "recording":
            self.mic_button.setIcon(recording_icon(level))
        elif state == "transcribing":
            self.mic_button.setIcon(busy_icon(colour))
        else:
            self.mic_button.setIcon(microphone_icon(colour))
        if changed:
            set_style_property(self.mic_button, "dictation", state)
            self.mic_button.setEnabled(self._reason is None or state != "idle")
            self._label_mic_button()

    def insert_dictation(self, text: str) -> None:
        """Put dictated words where the cursor is (replacing a selection),
        with a space from the word before unless either side is Chinese,
        Japanese or Korean text, or the text before ends a line."""
        cursor = self.editor.textCursor()
        if cursor.hasSelection():
            cursor.removeSelectedText()
        position = cursor.position()  # in UTF-16 units, as the document counts
        before = self.editor.document().characterAt(position - 1) if position else ""
        if before and not before.isspace() and not _cjk(before) and not _cjk(text[:1]):
            text = " " + text
        cursor.insertText(text)
        self.editor.setTextCursor(cursor)
        self.focus_input()

    def has_chips(self) -> bool:
        return bool(self.strip.chip_keys())

    def chips_ready(self) -> bool:
        return all(chip.is_ready() for chip in self.strip.chips())

    def choose_files(self) -> None:
        """The system file dialog (a fresh turn of the event loop: a click)."""
        from PySide6.QtWidgets import QFileDialog

        paths, _ = QFileDialog.getOpenFileNames(
            self,
            self.tr("Attach files"),
            "",
            self.tr("Images, documents and audio ({0});;All files (*)").format(_PATTERNS),
        )
        if paths:
            self.files_chosen.emit(list(paths))

    # ---- behaviour ----------------------------------------------------------
    def submit(self) -> None:
        """Send what is written, as Enter would (dictation sent at once)."""
        self._submit()

    def _submit(self) -> None:
        if self._reason is not None or self.confirm_bar.is_asking():
            return
        text = self.text().strip()
        if not text and not self.has_chips():
            return
        if not self.chips_ready():
            return  # a file is still being read; its chip says so
        log.debug("send requested (%d chars, running=%s)", len(text), self._running)
        self._close_popups()
        # the text stays until a handler takes it (``take_text``): a send the
        # window refuses (a compaction running) leaves it where it was typed
        self.send_requested.emit(text)

    def take_text(self, sent: str) -> None:
        """The window accepted a send of ``sent``: the box empties, unless it
        now holds something else (words typed after it, never the ones sent)."""
        if self.text().strip() == sent.strip():
            self.editor.clear()

    def _on_escape(self) -> None:
        if self._mic_state != "idle":
            self.dictation_cancel_requested.emit()
        elif self._running:
            self.stop_requested.emit()

    def _on_button_clicked(self) -> None:
        if self._running:
            self.stop_requested.emit()
        else:
            self._submit()

    def _on_focus_changed(self, focused: bool) -> None:
        set_style_property(self.frame, "focused", focused)
        if not focused:  # a click elsewhere closes the popups (a click in them keeps focus)
            QTimer.singleShot(200, self, self._close_popups_if_unfocused)

    def _close_popups_if_unfocused(self) -> None:
        if not self.editor.hasFocus():
            self._close_popups()

    def _on_text_changed(self) -> None:
        self._update_button()
        self.draft_changed.emit()

    def _on_chips_changed(self) -> None:
        self._update_button()
        self.draft_changed.emit()

    def _update_button(self) -> None:
        if self._running:
            self.send_button.setEnabled(True)
        else:
            has_content = bool(self.text().strip()) or self.has_chips()
            ready = self.chips_ready()
            self.send_button.setEnabled(self._reason is None and has_content and ready)

    def _retranslate(self) -> None:
        placeholder = self.tr("Message Mira… (Enter to send, Shift+Enter for a new line)")
        self.editor.setPlaceholderText(placeholder)
        # what a screen reader says (a placeholder is gone once there is text)
        self.editor.setAccessibleName(self.tr("Message"))
        self.editor.setAccessibleDescription(placeholder)
        attach_tip = self.tr("Attach files (you can also drop or paste them, or type @ to search)")
        self.attach_button.setToolTip(attach_tip)
        self.attach_button.setAccessibleName(self.tr("Attach files"))
        self.attach_button.setAccessibleDescription(attach_tip)
        self.attach_button.setIcon(
            paperclip_icon(self.palette().color(QPalette.ColorRole.ButtonText))
        )
        if self._mic_state != "recording":  # its level redraws it
            self.set_mic_state(self._mic_state, self._mic_seconds)
        self._label_mic_button()
        self._label_send_button()
        if self._reason_kind is not None:
            self._reason = standard_reason(self._reason_kind)
            self.reason_label.setText(self._reason)

    def _label_mic_button(self) -> None:
        tips = {
            "recording": self.tr("Stop and write down what you said ({0}); Esc discards").format(
                shortcut_text()
            ),
            "transcribing": self.tr("Writing down what you said… Click to stop"),
        }
        tip = tips.get(
            self._mic_state,
            self.tr("Dictate: speak, and your words are typed ({0})").format(shortcut_text()),
        )
        names = {
            "recording": self.tr("Stop dictating"),
            "transcribing": self.tr("Stop writing down"),
        }
        self.mic_button.setToolTip(tip)
        self.mic_button.setAccessibleName(names.get(self._mic_state, self.tr("Dictate")))
        self.mic_button.setAccessibleDescription(tip)

    def _label_send_button(self) -> None:
        if self._running:
            self.send_button.setText(self.tr("Stop"))
            self.send_button.setToolTip(self.tr("Stop the answer (Esc)"))
        else:
            self.send_button.setText(self.tr("Send"))
            self.send_button.setToolTip(self.tr("Send the message (Enter)"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.PaletteChange):
            self._retranslate()
        super().changeEvent(event)


def given_back(draft: str, typed: str) -> str:
    """A draft's text back in a composer that may hold words typed while it
    was away: both kept, the draft first (it was written first)."""
    if not typed.strip() or typed.strip() == draft.strip():
        return draft or typed
    if not draft.strip():
        return typed
    return f"{draft.rstrip()}\n\n{typed.lstrip()}"


#: Han, kana, CJK punctuation and full-width forms: text written without
#: spaces between words (Korean, emoji and a lone UTF-16 surrogate are not)
_CJK_RANGES = (
    (0x2E80, 0x2FDF),
    (0x3000, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
)


def _cjk(char: str) -> bool:
    """A character of Chinese or Japanese text (or their punctuation), which
    dictated words join without a space."""
    if not char:
        return False
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK_RANGES)
