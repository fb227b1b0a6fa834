"""Look of the application: light and dark palettes, the style sheet from
``resources/qss`` and a font list that renders Chinese as well as Latin text.

``apply_theme(app, mode)`` is the single entry point. "system" follows
``QStyleHints.colorScheme()`` and keeps following it while the application runs (the
mode is remembered as an application property, not in module state). Colours are
chosen so that body and secondary text keep a contrast of at least 4.5:1 on their
backgrounds in both themes; ``contrast_ratio()`` lets tests check it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from mira_desktop.paths import resource_path

log = logging.getLogger(__name__)

THEME_MODES = ("light", "dark", "system")
FONT_FAMILIES = (
    "Inter",
    "Segoe UI",
    "SF Pro Text",
    "Helvetica Neue",
    "Noto Sans",
    "Cantarell",
    "DejaVu Sans",
    "PingFang SC",
    "Microsoft YaHei UI",
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
)
_MODE_PROPERTY = "miraThemeMode"
_WATCH_PROPERTY = "miraThemeWatching"


@dataclass(frozen=True, slots=True)
class ThemeColors:
    """The few colours everything else derives from."""

    window: str
    surface: str
    surface_alt: str
    text: str
    muted: str
    border: str
    accent: str
    accent_text: str
    highlight: str
    highlight_text: str
    link: str
    disabled: str


LIGHT = ThemeColors(
    window="#f7f7f5",
    surface="#ffffff",
    surface_alt="#efefec",
    text="#1f2328",
    muted="#5c6169",
    border="#dedcd6",
    accent="#0f6e66",
    accent_text="#ffffff",
    highlight="#d9ece9",
    highlight_text="#1f2328",
    link="#0b5f8a",
    disabled="#8a8e94",
)

DARK = ThemeColors(
    window="#1f2023",
    surface="#2a2b2f",
    surface_alt="#18191b",
    text="#ececec",
    muted="#a9abb2",
    border="#3a3b40",
    accent="#5fcfc1",
    accent_text="#0d1f1d",
    highlight="#24504b",
    highlight_text="#f2f2f2",
    link="#7cc4f0",
    disabled="#7b7d84",
)


def colors_for(dark: bool) -> ThemeColors:
    return DARK if dark else LIGHT


def system_prefers_dark(app: QApplication) -> bool:
    return app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, mode: str) -> bool:
    """Apply "light", "dark" or "system"; return whether the dark theme is now active."""
    if mode not in THEME_MODES:
        log.warning("unknown theme %r, following the system", mode)
        mode = "system"
    app.setProperty(_MODE_PROPERTY, mode)
    if mode == "system":
        _request_scheme(app, Qt.ColorScheme.Unknown)  # drop an explicit choice, read the OS'
        dark = system_prefers_dark(app)
        _watch_system_scheme(app)
    else:
        dark = mode == "dark"
        # Also tells native parts (title bars, file dialogs) which scheme we show.
        _request_scheme(app, Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
    colors = colors_for(dark)
    app.setStyle("Fusion")
    app.setPalette(build_palette(colors))
    app.setFont(ui_font(app.font()))
    app.setStyleSheet(load_style_sheet(dark))
    app.setProperty("miraDarkTheme", dark)
    log.info("theme %s applied (dark=%s)", mode, dark)
    return dark


def _request_scheme(app: QApplication, scheme: Qt.ColorScheme) -> None:
    hints = app.styleHints()
    if hasattr(hints, "setColorScheme"):  # Qt >= 6.8
        hints.setColorScheme(scheme)


def _watch_system_scheme(app: QApplication) -> None:
    if app.property(_WATCH_PROPERTY):
        return
    app.setProperty(_WATCH_PROPERTY, True)

    def follow(_scheme: Qt.ColorScheme) -> None:
        if app.property(_MODE_PROPERTY) == "system":
            apply_theme(app, "system")

    app.styleHints().colorSchemeChanged.connect(follow)


def build_palette(colors: ThemeColors) -> QPalette:
    """A complete QPalette (active, inactive and disabled groups) from ``colors``."""
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: colors.window,
        QPalette.ColorRole.WindowText: colors.text,
        QPalette.ColorRole.Base: colors.surface,
        QPalette.ColorRole.AlternateBase: colors.surface_alt,
        QPalette.ColorRole.Text: colors.text,
        QPalette.ColorRole.Button: colors.surface,
        QPalette.ColorRole.ButtonText: colors.text,
        QPalette.ColorRole.BrightText: colors.accent_text,
        QPalette.ColorRole.ToolTipBase: colors.surface,
        QPalette.ColorRole.ToolTipText: colors.text,
        QPalette.ColorRole.PlaceholderText: colors.muted,
        QPalette.ColorRole.Highlight: colors.highlight,
        QPalette.ColorRole.HighlightedText: colors.highlight_text,
        QPalette.ColorRole.Link: colors.link,
        QPalette.ColorRole.LinkVisited: colors.link,
        QPalette.ColorRole.Accent: colors.accent,
        QPalette.ColorRole.Light: colors.surface,
        QPalette.ColorRole.Midlight: colors.surface_alt,
        QPalette.ColorRole.Mid: colors.border,
        QPalette.ColorRole.Dark: colors.border,
        QPalette.ColorRole.Shadow: colors.border,
    }
    for role, value in roles.items():
        palette.setColor(role, QColor(value))
    disabled = QColor(colors.disabled)
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.PlaceholderText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def ui_font(base: QFont) -> QFont:
    """``base`` with a family list whose later entries cover CJK glyphs."""
    font = QFont(base)
    font.setFamilies(list(FONT_FAMILIES))
    if font.pointSizeF() < 10:
        font.setPointSizeF(10)
    return font


def set_style_property(widget: QWidget, name: str, value: object) -> None:
    """Set a dynamic property used by a QSS selector and re-apply the style sheet."""
    if widget.property(name) == value:
        return
    widget.setProperty(name, value)
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)
    widget.update()


def load_style_sheet(dark: bool) -> str:
    """The theme's QSS, with ``@QSS_DIR@`` pointing at its images (arrows, check mark)."""
    folder = resource_path("qss")
    path = folder / ("dark.qss" if dark else "light.qss")
    try:
        sheet = path.read_text(encoding="utf-8")
    except OSError as exc:
        log.warning("style sheet %s not found (%s); using the palette only", path, exc)
        return ""
    return sheet.replace("@QSS_DIR@", folder.as_posix())


def relative_luminance(color: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(color.redF())
        + 0.7152 * channel(color.greenF())
        + 0.0722 * channel(color.blueF())
    )


def contrast_ratio(first: QColor | str, second: QColor | str) -> float:
    """WCAG contrast ratio of two colours (1.0 … 21.0)."""
    lum = sorted(
        (relative_luminance(QColor(first)), relative_luminance(QColor(second))), reverse=True
    )
    return (lum[0] + 0.05) / (lum[1] + 0.05)
