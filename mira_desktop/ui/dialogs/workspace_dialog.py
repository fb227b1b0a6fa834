"""``WorkspaceDialog``: create or edit a workspace (PRODUCT.md §1, §8) — its
name, its colour (the sidebar's palette) and an optional root folder (the
agent's and @-search's file scope, chosen with the system folder dialog).
Mira BASE keeps its name; its colour and folder can change.

The dialog only collects :class:`WorkspaceValues`: OK (or Enter) emits
``submitted(values)`` and the dialog stays open; the window's workspace actions
save them through ``WorkspaceService`` (which checks the name and the folder)
and then close it with :meth:`finish`, or show why not with :meth:`show_error`
— what was typed stays. A colour outside the palette (the command line takes
any ``#rrggbb``) is kept, as one more swatch."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.models import Workspace
from ...services.workspaces import DEFAULT_COLOR, PALETTE

log = logging.getLogger(__name__)

#: the palette's colours in display order (gray/grey are one colour)
SWATCHES = tuple(dict.fromkeys(PALETTE.values()))
NAME_LIMIT = 80


@dataclass(frozen=True, slots=True)
class WorkspaceValues:
    name: str
    color: str
    root_dir: str | None


def _swatch_icon(color: str, size: int = 18) -> QIcon:
    ratio = 2
    pixmap = QPixmap(size * ratio, size * ratio)
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(color))
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)


class WorkspaceDialog(QDialog):
    """Signal ``submitted(WorkspaceValues)``: OK was pressed; the caller saves."""

    submitted = Signal(object)

    def __init__(self, workspace: Workspace | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WorkspaceDialog")
        self._workspace = workspace
        self._busy = False
        self.name_edit = QLineEdit(self)
        self.name_edit.setObjectName("WorkspaceName")
        self.name_edit.setMaxLength(NAME_LIMIT)
        self.folder_edit = QLineEdit(self)
        self.folder_edit.setObjectName("WorkspaceFolder")
        self.folder_edit.setClearButtonEnabled(True)
        self.choose_button = QPushButton(self)
        self.choose_button.setObjectName("ChooseFolder")
        self.choose_button.clicked.connect(self._choose_folder)
        self._build_swatches()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("WorkspaceError")
        self.error_label.setWordWrap(True)
        self.error_label.setProperty("status", "error")
        self.error_label.hide()
        self.name_edit.textChanged.connect(self._update_ok)
        for edit in (self.name_edit, self.folder_edit):
            edit.textEdited.connect(lambda _text: self.show_error(""))
        self._build_layout()
        self._load(workspace)
        self._retranslate()

    def _build_swatches(self) -> None:
        self.swatches = QButtonGroup(self)
        self.swatches.setExclusive(True)
        self.swatch_row = QHBoxLayout()
        self.swatch_row.setSpacing(4)
        for color in SWATCHES:
            button = QToolButton(self)
            button.setObjectName(f"Swatch_{color}")
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setIcon(_swatch_icon(color))
            button.setIconSize(QSize(18, 18))
            button.setProperty("color", color)
            button.setProperty("swatch", True)  # the chosen one is ringed (style sheets)
            self.swatches.addButton(button)
            self.swatch_row.addWidget(button)
        self.swatch_row.addStretch(1)

    def _build_layout(self) -> None:
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(self.choose_button)
        self.labels = [QLabel(self) for _ in range(3)]
        self.form = QFormLayout()
        self.form.addRow(self.labels[0], self.name_edit)
        self.form.addRow(self.labels[1], self.swatch_row)
        self.form.addRow(self.labels[2], folder_row)
        column = QVBoxLayout(self)
        column.addLayout(self.form)
        column.addWidget(self.error_label)
        column.addWidget(self.buttons)
        self.resize(460, self.sizeHint().height())

    def _load(self, workspace: Workspace | None) -> None:
        color = (workspace.color if workspace else "") or DEFAULT_COLOR
        if workspace is None:
            color = SWATCHES[5 % len(SWATCHES)]  # a friendly blue for new ones
        self.set_color(color)
        if workspace is not None:
            self.name_edit.setText(workspace.name)
            self.folder_edit.setText(workspace.root_dir or "")
            self.name_edit.setEnabled(not workspace.is_default)
        self._update_ok()

    # ---- values -----------------------------------------------------------------
    def values(self) -> WorkspaceValues:
        folder = self.folder_edit.text().strip()
        return WorkspaceValues(
            " ".join(self.name_edit.text().split()), self.color(), folder or None
        )

    def color(self) -> str:
        checked = self.swatches.checkedButton()
        return str(checked.property("color")) if checked is not None else DEFAULT_COLOR

    def set_color(self, color: str) -> None:
        """Check the swatch of ``color``; one outside the palette gets its own."""
        for button in self.swatches.buttons():
            if str(button.property("color")).lower() == color.lower():
                button.setChecked(True)
                return
        custom = self.findChild(QToolButton, "Swatch_custom")
        if custom is None:
            custom = QToolButton(self)
            custom.setObjectName("Swatch_custom")
            custom.setCheckable(True)
            custom.setAutoRaise(True)
            custom.setIconSize(QSize(18, 18))
            custom.setProperty("swatch", True)
            self.swatches.addButton(custom)
            self.swatch_row.insertWidget(self.swatch_row.count() - 1, custom)  # before the stretch
        custom.setIcon(_swatch_icon(color))
        custom.setProperty("color", color.lower())
        custom.setToolTip(self.tr("Custom colour {color}").format(color=color.lower()))
        custom.setChecked(True)

    # ---- saving ---------------------------------------------------------------------
    def accept(self) -> None:
        """OK: hand the values over; the dialog closes once they are saved."""
        if self._busy or not self.values().name:
            return
        self.show_error("")
        self.submitted.emit(self.values())

    def set_busy(self, busy: bool) -> None:
        """While the values are saved, OK waits."""
        self._busy = busy
        self._update_ok()

    def show_error(self, text: str) -> None:
        """Why the values were not saved ("" hides it); the fields stay as typed."""
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def finish(self) -> None:
        """The values were saved: close."""
        self._busy = False
        super().accept()

    def _choose_folder(self) -> None:
        start = self.folder_edit.text().strip()
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the root folder"), start)
        if folder:
            self.folder_edit.setText(folder)

    def _update_ok(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.name_edit.text().strip()) and not self._busy)

    def _retranslate(self) -> None:
        creating = self._workspace is None
        self.setWindowTitle(self.tr("New workspace") if creating else self.tr("Edit workspace"))
        for label, text in zip(
            self.labels, (self.tr("Name"), self.tr("Colour"), self.tr("Root folder")), strict=True
        ):
            label.setText(text)
        self.name_edit.setPlaceholderText(self.tr("e.g. Research"))
        if self._workspace is not None and self._workspace.is_default:
            self.name_edit.setToolTip(self.tr("The default workspace keeps its name."))
        self.folder_edit.setPlaceholderText(self.tr("Optional: files the agent may read"))
        self.choose_button.setText(self.tr("Choose…"))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("Create") if creating else self.tr("Save"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
