"""Formatting of the small print under a message.

Owns the translated, locale-aware strings of the meta line: the model, the local
time of the message, token usage as "↑prompt ↓completion" and the reasoning
count ("reasoning 812", or "reasoning ≈ 812" when it was estimated locally),
the status text of stopped and failed answers, the note a run left on its
answer (a Retry that escalated to a stronger model), and in the tooltip the
reasoning level the answer was asked with.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QDate, QDateTime, QLocale, Qt

from mira_desktop.core.errors import error_from_dict
from mira_desktop.core.events import CUT_OFF_KEY
from mira_desktop.core.models import Message, MessageStatus, Usage
from mira_desktop.ui.error_texts import hint_text, message_text

log = logging.getLogger(__name__)

SEPARATOR = " · "


def _tr(text: str) -> str:
    return QCoreApplication.translate("Timeline", text)


def local_time(iso: str, locale: QLocale | None = None) -> tuple[str, str]:
    """(short label, full tooltip) for a UTC ISO-8601 timestamp, in local time;
    the label is the time alone for today, date and time otherwise."""
    if not iso:
        return "", ""
    stamp = QDateTime.fromString(iso, Qt.DateFormat.ISODateWithMs)
    if not stamp.isValid():
        stamp = QDateTime.fromString(iso, Qt.DateFormat.ISODate)
    if not stamp.isValid():
        log.debug("unparsable timestamp %r", iso)
        return "", ""
    stamp = stamp.toLocalTime()
    locale = locale or QLocale()
    full = locale.toString(stamp, QLocale.FormatType.LongFormat)
    if stamp.date() == QDate.currentDate():
        return locale.toString(stamp.time(), QLocale.FormatType.ShortFormat), full
    return locale.toString(stamp, QLocale.FormatType.ShortFormat), full


def usage_text(usage: Usage | None, locale: QLocale | None = None) -> str:
    """ "↑120 ↓480 · reasoning ≈ 300", or "" when nothing was counted."""
    if usage is None or not (usage.prompt_tokens or usage.completion_tokens):
        return ""
    locale = locale or QLocale()
    approx = "≈ " if usage.counts_estimated else ""
    parts = [
        f"{approx}↑{locale.toString(usage.prompt_tokens)} ↓{locale.toString(usage.completion_tokens)}"
    ]
    if usage.reasoning_tokens:
        count = locale.toString(usage.reasoning_tokens)
        if usage.reasoning_estimated:
            parts.append(_tr("reasoning ≈ {0}").format(count))
        else:
            parts.append(_tr("reasoning {0}").format(count))
    return SEPARATOR.join(parts)


def meta_text(message: Message) -> tuple[str, str]:
    """(meta line, tooltip) of an assistant message."""
    locale = QLocale()
    label, full = local_time(message.created_at, locale)
    parts = [p for p in (message.model or "", label, usage_text(message.usage, locale)) if p]
    lines = [full]
    if message.usage is not None and message.usage.estimated:
        lines.append(_tr("Token counts estimated locally"))
    level = reasoning_text((message.data or {}).get("reasoning"))
    if level:
        lines.append(_tr("Reasoning effort: {0}").format(level))
    return SEPARATOR.join(parts), "\n".join(t for t in lines if t)


def reasoning_text(level: object) -> str:
    """The reasoning level an answer was asked with, in words ("" for none)."""
    names = {"off": _tr("off"), "low": _tr("low"), "medium": _tr("medium"), "high": _tr("high")}
    return names.get(level, "") if isinstance(level, str) else ""


def status_texts(message: Message) -> tuple[str, str]:
    """(status, hint) for a stopped or failed answer, else empty strings."""
    if message.status == MessageStatus.STOPPED:
        return _tr("Stopped"), ""
    if message.status != MessageStatus.FAILED:
        return "", ""
    if not message.error:
        return _tr("The answer could not be completed."), ""
    # stored in English: shown in the interface's language where the catalogue can
    error = error_from_dict(message.error)
    return message_text(error) or _tr("The answer could not be completed."), hint_text(error)


def note_text(message: Message) -> str:
    """The run's note under an answer, translated when it is a tier escalation
    (``data["escalated_to"]``/``["escalated_from"]``), else as stored."""
    data = message.data or {}
    target, source = data.get("escalated_to"), data.get("escalated_from")
    if isinstance(target, dict) and isinstance(source, dict) and target.get("model"):
        tier = _tier_name(str(target.get("tier") or ""))
        values = {"model": target["model"], "tier": tier, "previous": source.get("model", "")}
        if tier:
            return _tr("Retry escalated to {model} ({tier} tier) from {previous}.").format(**values)
        return _tr("Retry escalated to {model} from {previous}.").format(**values)
    note = data.get("note")
    note = note if isinstance(note, str) else ""
    if data.get(CUT_OFF_KEY):
        cut = _tr(
            "The model stopped at its length limit: this answer is cut off. Ask it to go on,"
            " or give the thread a role with a larger maximum length."
        )
        note = f"{note} {cut}" if note else cut
    return note


def _tier_name(tier: str) -> str:
    names = {"fast": _tr("fast"), "standard": _tr("standard"), "reasoning": _tr("reasoning")}
    return names.get(tier, tier)
