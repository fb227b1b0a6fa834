"""Themes: apply_theme sets a full palette and the matching style sheet, text keeps a
4.5:1 contrast in both themes, and the font list covers Chinese."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QApplication

from mira_desktop.paths import resource_path
from mira_desktop.ui.theme import (
    DARK,
    LIGHT,
    apply_theme,
    build_palette,
    contrast_ratio,
    system_prefers_dark,
)

Role = QPalette.ColorRole
TEXT_PAIRS = [
    (Role.WindowText, Role.Window),
    (Role.Text, Role.Base),
    (Role.Text, Role.AlternateBase),
    (Role.ButtonText, Role.Button),
    (Role.PlaceholderText, Role.Base),
    (Role.PlaceholderText, Role.Window),
    (Role.HighlightedText, Role.Highlight),
    (Role.BrightText, Role.Accent),
    (Role.Link, Role.Base),
    (Role.ToolTipText, Role.ToolTipBase),
]


def test_dark_theme_applies_palette_and_style_sheet(themed_app: QApplication) -> None:
    assert apply_theme(themed_app, "dark") is True
    palette = themed_app.palette()
    assert palette.color(Role.Window).name() == DARK.window
    assert palette.color(Role.Base).name() == DARK.surface
    assert palette.color(Role.Text).name() == DARK.text
    sheet = themed_app.styleSheet()
    assert DARK.accent in sheet
    assert "@QSS_DIR@" not in sheet
    arrow = resource_path("qss", "chevron-down-dark.svg")
    assert f"url({arrow.as_posix()})" in sheet and arrow.is_file()
    assert themed_app.property("miraDarkTheme") is True


def test_light_theme(themed_app: QApplication) -> None:
    assert apply_theme(themed_app, "light") is False
    assert themed_app.palette().color(Role.Window).name() == LIGHT.window
    assert LIGHT.accent in themed_app.styleSheet()


def test_system_follows_the_style_hints(themed_app: QApplication) -> None:
    apply_theme(themed_app, "dark")  # an explicit choice must not stick to "system"
    themed_app.styleHints().setColorScheme(Qt.ColorScheme.Unknown)
    expected = system_prefers_dark(themed_app)
    assert apply_theme(themed_app, "system") is expected
    assert apply_theme(themed_app, "nonsense") is expected


@pytest.mark.parametrize("colors", [LIGHT, DARK], ids=["light", "dark"])
def test_text_contrast_at_least_4_5(colors) -> None:
    palette = build_palette(colors)
    for fg, bg in TEXT_PAIRS:
        ratio = contrast_ratio(palette.color(fg), palette.color(bg))
        assert ratio >= 4.5, (fg, bg, round(ratio, 2))
    assert contrast_ratio(colors.muted, colors.surface_alt) >= 4.5  # sidebar timestamps


def test_style_sheets_use_their_theme_colours() -> None:
    for name, colors, other in (("light", LIGHT, DARK), ("dark", DARK, LIGHT)):
        sheet = resource_path("qss", f"{name}.qss").read_text(encoding="utf-8")
        assert colors.text in sheet and colors.surface in sheet
        assert other.surface not in sheet


def test_font_list_covers_chinese(themed_app: QApplication) -> None:
    apply_theme(themed_app, "light")
    families = themed_app.font().families()
    assert "WenQuanYi Micro Hei" in families
    assert "Noto Sans CJK SC" in families
    assert themed_app.font().pointSizeF() >= 10


def test_contrast_ratio_reference_values() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert isinstance(QFont().families(), list)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_muted_text_keeps_its_contrast_under_the_style_sheet(themed_app: QApplication, qtbot, mode: str) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    """A style sheet's ``color:`` makes Qt derive the placeholder colour (the
    sidebar's times and group headers, search snippets, the composer's hint)
    from the text at half opacity: 3.05:1 on the sidebar. The sheets set it."""
    from PySide6.QtWidgets import QLineEdit, QListView, QVBoxLayout, QWidget

    apply_theme(themed_app, mode)
    colors = DARK if mode == "dark" else LIGHT
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    widgets = [QListView(host), QLineEdit(host)]
    for widget in widgets:
        layout.addWidget(widget)
    host.show()
    qtbot.waitExposed(host)
    for widget in widgets:
        placeholder = widget.palette().color(Role.PlaceholderText)
        assert placeholder.alpha() == 255 and placeholder.name() == colors.muted
        for background in (colors.surface, colors.surface_alt, colors.window):
            assert contrast_ratio(placeholder, background) >= 4.5, (type(widget), background)


def test_the_chosen_workspace_colour_is_ringed(themed_app: QApplication, qtbot) -> None:  # type: ignore[no-untyped-def]
    """All ten swatches looked alike, the chosen one too: the sheets ring a
    checked swatch in the accent colour, and the dialog's swatches use it."""
    from PySide6.QtWidgets import QToolButton

    from mira_desktop.ui.dialogs.workspace_dialog import WorkspaceDialog

    for name, colors in (("light", LIGHT), ("dark", DARK)):
        sheet = resource_path("qss", f"{name}.qss").read_text(encoding="utf-8")
        assert f'QToolButton[swatch="true"]:checked {{ border-color: {colors.accent}; }}' in sheet
    dialog = WorkspaceDialog(None)
    qtbot.addWidget(dialog)
    swatches = [b for b in dialog.findChildren(QToolButton) if b.objectName().startswith("Swatch_")]
    assert len(swatches) == 10 and all(b.property("swatch") is True for b in swatches)
    assert sum(b.isChecked() for b in swatches) == 1


def test_the_timeline_follows_a_theme_the_system_applies(themed_app: QApplication, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Following the system, an OS switch between light and dark re-applies
    the palette (``apply_theme(app, "system")``, from the colour scheme
    watcher), not through Settings: the timeline's inline-code backgrounds,
    baked into its HTML, stayed those of the old theme (#1f2328 text on
    #2d333b, about 1.3:1). They follow every theme change now."""
    from mira_desktop.core.models import Message, MessageRole
    from tests.ui.timeline_support import shown_timeline

    themed_app.styleHints().setColorScheme(Qt.ColorScheme.Unknown)
    system_dark = system_prefers_dark(themed_app)  # what the OS says (offscreen: light)
    backgrounds = {True: "#2d333b", False: "#eceef1"}  # markdown._INLINE_CODE_BG
    start_dark = apply_theme(themed_app, "light" if system_dark else "dark")
    view = shown_timeline(qtbot)
    view.set_dark(start_dark)  # as the launch does
    answer = Message(
        id="a1",
        thread_id="t1",
        role=MessageRole.ASSISTANT,
        text="Run `make check` first.",
        created_at="2026-11-30T08:00:00.000Z",
    )
    view.set_messages([answer])
    body = view.message_widget("a1").body
    assert backgrounds[start_dark] in body.toHtml()
    assert apply_theme(themed_app, "system") is system_dark  # the watcher's call
    qtbot.waitUntil(lambda: backgrounds[system_dark] in view.message_widget("a1").body.toHtml())
    assert backgrounds[start_dark] not in view.message_widget("a1").body.toHtml()
