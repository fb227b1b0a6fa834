"""Translated names of the sidebar's date groups (PRODUCT.md §8): Pinned, Today,
Yesterday, Previous 7 days, Previous 30 days, then one group per month. Month
names come from ``QLocale`` in the language of the interface (the catalogue
says which locale it is, so an English interface on a German system still says
"May"); months of another year carry the year."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QDate, QLocale

from mira_desktop.core.history import ThreadGroup

log = logging.getLogger(__name__)

TR_CONTEXT = "ThreadGroups"  # translation context of this module's strings


def _tr(text: str) -> str:
    return QCoreApplication.translate("ThreadGroups", text)


def ui_locale() -> QLocale:
    """The locale of the interface's language (English when untranslated)."""
    # Translators: the QLocale name of the translation's language (e.g. zh_CN).
    # No disambiguation comment: the pure-Python .qm compiler then answers as lrelease.
    return QLocale(QCoreApplication.translate(TR_CONTEXT, "en_US"))


def fixed_label(key: str) -> str | None:
    labels = {
        "pinned": _tr("Pinned"),
        "today": _tr("Today"),
        "yesterday": _tr("Yesterday"),
        "previous_7_days": _tr("Previous 7 days"),
        "previous_30_days": _tr("Previous 30 days"),
    }
    return labels.get(key)


def group_label(group: ThreadGroup) -> str:
    """The translated header of ``group`` (its English label when unknown). A
    month of another year is told by its English label, which then ends with the
    year (``services/timeframes.month_group``, on the history's own clock)."""
    fixed = fixed_label(group.key)
    if fixed is not None:
        return fixed
    if not group.key.startswith("month:"):
        return group.label
    try:
        year, month = (int(part) for part in group.key[len("month:") :].split("-"))
    except ValueError:
        log.debug("odd month group key %r", group.key)
        return group.label
    locale = ui_locale()
    if not group.label.endswith(str(year)):
        return locale.standaloneMonthName(month)
    return locale.toString(QDate(year, month, 1), _tr("MMMM yyyy"))
