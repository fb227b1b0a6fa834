"""``[n]`` citations of a rendered answer made links to their sources, for
the window (``cite:n`` anchors the timeline handles) and the HTML export
(``#…`` anchors to the Sources list under the answer). Only numbers that name
a source become links; never inside ``pre``, ``code`` or an existing link.
``[1, 2]`` and ``[1-3]`` make each number its own link. Stdlib only."""

from __future__ import annotations

import re
from collections.abc import Callable

_TAG = re.compile(r"(<[^>]*>)")
_GROUP = re.compile(r"\[(\s*\d+(?:\s*(?:[,，、;]|[-–—])\s*\d+)*\s*)\](?!\()")
_NUMBER = re.compile(r"\d+")
#: elements whose text is never a citation
_SKIP = ("pre", "code", "a")

Href = Callable[[int], str]


def _anchor(href: str, label: str) -> str:
    return f'<a href="{href}" style="text-decoration:none;">{label}</a>'


def _link_group(match: re.Match[str], numbers: frozenset[int], href: Href) -> str:
    """One bracket: ``[1]`` is one anchor; in ``[1, 2]`` each number is one."""
    group = match.group(1)
    if group.strip().isdigit():
        n = int(group)
        return _anchor(href(n), match.group(0)) if n in numbers else match.group(0)

    def each(number: re.Match[str]) -> str:
        n = int(number.group(0))
        return _anchor(href(n), number.group(0)) if n in numbers else number.group(0)

    return f"[{_NUMBER.sub(each, group)}]"


def link_citations(html: str, numbers: frozenset[int], href: Href) -> str:
    """``html`` with each ``[n]`` of a number in ``numbers`` an anchor to ``href(n)``."""
    if not numbers or "[" not in html:
        return html
    parts = _TAG.split(html)
    depth = 0
    for index, part in enumerate(parts):
        if index % 2:  # a tag
            name = part.strip("</>").split(maxsplit=1)[0].lower() if part.strip("</>") else ""
            if name in _SKIP:
                depth += -1 if part.startswith("</") else 1
        elif depth <= 0 and "[" in part:
            parts[index] = _GROUP.sub(lambda m: _link_group(m, numbers, href), part)
    return "".join(parts)
