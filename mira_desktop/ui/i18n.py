"""Language of the user interface: picks the language, finds or builds its ``.qm`` file and
installs the translators (Mira's own and Qt's ``qtbase`` for standard dialogs).

Lookup order for Mira's catalogue: a compiled ``mira_<lang>.qm`` shipped in
``resources/i18n`` (wheels and bundles), then a copy compiled earlier into the cache
folder (kept while it is newer than the ``.ts``), else the ``.ts`` is compiled now with
the pure-Python compiler of :mod:`mira_desktop.ui.ts_compiler` — a fresh checkout shows
Chinese on first start without any build step. Translators are parented to the
application and found again by object name, so re-installing replaces them (no
module-level state). Widgets retranslate themselves on ``QEvent.LanguageChange``.

Installing a language also sets the default ``QLocale`` — how dates and numbers
are written (:func:`formats_locale`) — so the interface never shows a Chinese
sentence around an English weekday, nor the C locale's bare "27 11 2025 09:34".
"""

from __future__ import annotations

import hashlib
import logging
import sys
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QLocale,
    QTranslator,
)
from PySide6.QtWidgets import QApplication

from mira_desktop.paths import resource_path

log = logging.getLogger(__name__)

SUPPORTED_LANGUAGES = ("en", "zh_CN")
CATALOGUE = "mira"
_TRANSLATOR_NAME = "mira-translator"


def resolve_language(language: str, system_locale: QLocale | None = None) -> str:
    """Map a setting ("en" | "zh_CN" | "system") to a supported language code."""
    if language in SUPPORTED_LANGUAGES:
        return language
    if language != "system":
        log.warning("unknown language setting %r, using the system language", language)
    locale = system_locale if system_locale is not None else QLocale.system()
    for name in locale.uiLanguages():
        if name.replace("-", "_").lower().startswith("zh"):
            return "zh_CN"
    return "en"


_LANGUAGES = {
    "en": (QLocale.Language.English, QLocale.Script.AnyScript),
    "zh_CN": (QLocale.Language.Chinese, QLocale.Script.SimplifiedHanScript),
}


def formats_locale(language: str, system_locale: QLocale | None = None) -> QLocale:
    """The locale dates and numbers are written in under the interface language
    ``language`` ("en" | "zh_CN"): the system's own when it speaks that language
    (its regional formats kept: en_GB writes 27/11/2025), else that language as
    written in the system's region (English in Germany: en_DE, 27/11/2025 and
    1.234.567; Qt takes the language's main region when it has none there, and
    for the C/POSIX locale, which has no region: en_US, zh_CN)."""
    system = system_locale if system_locale is not None else QLocale.system()
    wanted, script = _LANGUAGES.get(language, _LANGUAGES["en"])
    if system.language() == wanted and script in (
        QLocale.Script.AnyScript,
        system.script(),
    ):
        return system
    return QLocale(wanted, script, system.territory())


def default_cache_dir() -> Path:
    """Where compiled translations go when the caller does not say."""
    from PySide6.QtCore import QStandardPaths  # a class PySide6 builds on first use

    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(base or Path.home() / ".cache" / "mira-desktop") / "i18n"


def find_or_build_qm(
    language: str, *, i18n_dir: Path | None = None, cache_dir: Path | None = None
) -> Path | None:
    """Path of a loadable ``.qm`` for ``language``, compiling the ``.ts`` if needed."""
    source_dir = i18n_dir if i18n_dir is not None else resource_path("i18n")
    shipped = source_dir / f"{CATALOGUE}_{language}.qm"
    ts_file = source_dir / f"{CATALOGUE}_{language}.ts"
    if shipped.is_file() and (
        not ts_file.is_file() or _is_fresh(shipped, ts_file) or _is_installed(source_dir)
    ):
        return shipped
    if not ts_file.is_file():
        return shipped if shipped.is_file() else None
    # one compiled file per source: two checkouts sharing the user's cache would
    # otherwise each take the other's (newer) file for their own
    source = hashlib.sha1(str(ts_file.resolve()).encode(), usedforsecurity=False).hexdigest()
    cached = (cache_dir if cache_dir is not None else default_cache_dir()) / (
        f"{shipped.stem}-{source[:10]}.qm"
    )
    if cached.is_file() and _is_fresh(cached, ts_file):
        return cached
    from mira_desktop.ui.ts_compiler import compile_ts  # xml.etree: only when compiling

    try:
        compile_ts(ts_file, cached)
    except (OSError, ValueError) as exc:  # ET.ParseError is a ValueError subclass
        log.warning("cannot compile %s into %s: %s", ts_file, cached, exc)
        return shipped if shipped.is_file() else None
    return cached


def _is_installed(source_dir: Path) -> bool:
    """An installed wheel or bundle ships .qm files built from its own .ts files;
    installers do not keep file times, so trust them (only a checkout edits .ts)."""
    return source_dir.parent.name == "_resources" or bool(getattr(sys, "frozen", False))


def _is_fresh(qm_file: Path, ts_file: Path) -> bool:
    return qm_file.stat().st_mtime >= ts_file.stat().st_mtime


def install_translator(
    app: QApplication,
    language: str,
    *,
    cache_dir: Path | None = None,
    i18n_dir: Path | None = None,
) -> str:
    """Install the translators for ``language`` ("en" | "zh_CN" | "system").

    Returns the language actually in effect ("en" when a catalogue cannot be loaded).
    Installing sends ``LanguageChange`` to every widget, so open windows update."""
    resolved = resolve_language(language)
    _remove_installed(app)
    if resolved == "en":
        _deliver_language_change("en")
        return "en"
    qm_file = find_or_build_qm(resolved, i18n_dir=i18n_dir, cache_dir=cache_dir)
    mira = _load_translator(app, qm_file) if qm_file is not None else None
    if mira is None:
        log.warning("no usable translation for %s; falling back to English", resolved)
        _deliver_language_change("en")
        return "en"
    from PySide6.QtCore import QLibraryInfo  # only for a translated language

    qt_dir = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
    qtbase = _load_translator(app, qt_dir / f"qtbase_{resolved}.qm")
    if qtbase is not None:
        app.installTranslator(qtbase)
    app.installTranslator(mira)  # installed last so Mira's strings win
    _deliver_language_change(resolved)
    return resolved


def current_language() -> str:
    """The language the interface shows ("en" before any is installed)."""
    return _current[0]


_current = ["en"]


def _deliver_language_change(language: str) -> None:
    _current[0] = language
    # The formats first: widgets rebuilt on LanguageChange read QLocale() again.
    QLocale.setDefault(formats_locale(language))
    # Qt *posts* LanguageChange to the windows; deliver it now so the interface has
    # switched language when install_translator() returns.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)


def _load_translator(app: QApplication, qm_file: Path) -> QTranslator | None:
    translator = QTranslator(app)
    translator.setObjectName(_TRANSLATOR_NAME)
    if not translator.load(str(qm_file)):
        log.debug("translator did not load %s", qm_file)
        translator.deleteLater()
        return None
    return translator


def _remove_installed(app: QApplication) -> None:
    for translator in app.findChildren(QTranslator):
        if translator.objectName() == _TRANSLATOR_NAME:
            app.removeTranslator(translator)
            translator.setObjectName("")
            translator.deleteLater()
