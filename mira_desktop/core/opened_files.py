"""Files Mira hands to the system to open (PRODUCT.md §10's Open, a source's
document, a picture someone attached): names and paths come from the data —
an imported conversation's data too — so they are never trusted to say where
a file is written or what the system runs. Standard library only.

* :func:`cache_name` — the name a copy gets in the cache folder: one plain
  file name (no folder, no ``..``), its ending taken from the stored type for
  pictures and audio, never from the name.
* :func:`runs_when_opened` — a path whose ending makes desktops *run* it
  rather than show it (``.exe``, ``.bat``, ``.py`` on Windows, ``.desktop``…):
  such a file is shown in its folder instead of opened.
* :func:`mail_link` — a ``mailto:`` link from a model's answer with only the
  fields a message has: an ``attach=`` would make some mail programs attach
  a file of this computer to the draft (CVE-2020-27748)."""

from __future__ import annotations

import re
from pathlib import PurePath
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

#: the ending a copy of stored media gets, by its type
_ENDINGS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/wave": ".wav",
    "audio/mpeg": ".mp3",
    "audio/mp4": ".m4a",
    "audio/x-m4a": ".m4a",
    "audio/ogg": ".ogg",
    "audio/webm": ".webm",
    "audio/flac": ".flac",
}

#: endings desktops run, or hand to an interpreter, when asked to open them
_RUNS = frozenset(
    [
        "exe",
        "com",
        "bat",
        "cmd",
        "msi",
        "msp",
        "scr",
        "pif",
        "cpl",
        "lnk",
        "url",
        "reg",
        "hta",
        "ps1",
        "psm1",
        "vbs",
        "vbe",
        "js",
        "jse",
        "wsf",
        "wsh",
        "wsc",
        "jar",
        "py",
        "pyw",
        "pyz",
        "pyc",
        "sh",
        "bash",
        "zsh",
        "csh",
        "ksh",
        "fish",
        "command",
        "tool",
        "app",
        "desktop",
        "appimage",
        "run",
        "bin",
        "action",
        "workflow",
        "applescript",
        "scpt",
        "deb",
        "rpm",
        "pkg",
        "dmg",
    ]
)
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*\u202a-\u202e\u2066-\u2069]+')
_NAME_BYTES = 120


def cache_name(name: str, mime: str) -> str:
    """A plain file name for a copy of stored content named ``name`` (from
    the data) of type ``mime``."""
    base = re.split(r"[\\/]", str(name))[-1]
    stem = PurePath(base).stem if "." in base else base
    stem = _UNSAFE.sub("-", " ".join(stem.split())).strip(" .-") or "file"
    stem = stem.encode("utf-8")[:_NAME_BYTES].decode("utf-8", "ignore").rstrip(" .-") or "file"
    return stem + _ENDINGS.get(mime.lower().split(";")[0].strip(), ".bin")


def runs_when_opened(path: str) -> bool:
    """True when opening ``path`` with the system would run it."""
    name = re.split(r"[\\/]", path.rstrip("\\/"))[-1].lower()
    ending = name.rpartition(".")[2] if "." in name else ""
    return ending in _RUNS


#: the fields a mailto: link keeps (RFC 6068's, less anything a program
#: could read as a file to attach)
_MAIL_FIELDS = frozenset({"to", "cc", "bcc", "subject", "body", "in-reply-to"})


def mail_link(href: str) -> str:
    """``href`` (a ``mailto:`` link) with only the message's own fields."""
    parts = urlsplit(href.strip())
    if parts.scheme.lower() != "mailto":
        return href
    kept = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if k.lower() in _MAIL_FIELDS
    ]
    query = urlencode(kept, quote_via=quote)
    return f"mailto:{parts.path}" + (f"?{query}" if query else "")
