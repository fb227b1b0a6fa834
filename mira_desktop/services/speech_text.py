"""What of an answer is read aloud: its Markdown as sentences a voice can say.

Code blocks, tables' rules, images, URLs, HTML tags and the marks of Markdown
(``#``, ``**``, backticks, list bullets, citation numbers ``[1]``) are not
spoken; link texts and the words of a table are. The language of the voice
follows the text's main script (Chinese characters against Latin letters)."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: at most this many characters are spoken (~25 minutes of English, ~35 MB of WAV)
MAX_SPOKEN_CHARS = 12_000

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_OPEN_FENCE = re.compile(r"^(```|~~~).*\Z", re.MULTILINE | re.DOTALL)  # never closed
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
_CITATION = re.compile(r"\[\d+(?:\s*[,，]\s*\d+)*\]")
_URL = re.compile(r"<?https?://[^\s>)]+>?")
_TAG = re.compile(r"</?[A-Za-z][^>\n]*>")
# line-anchored marks: [ \t], never \s (which would swallow blank lines)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]*", re.MULTILINE)
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?", re.MULTILINE)
_BULLET = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?", re.MULTILINE)
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.MULTILINE)
_TABLE_RULE = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*\n", re.MULTILINE
)
_EMPHASIS = re.compile(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1")
_UNDERSCORES = re.compile(r"(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\1(?!\w)")  # not snake_case
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?。，；：！？])")
_CODE_SPAN = re.compile(r"`+([^`]*)`+")
_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_SPACES = re.compile(r"[ \t]+")
_BLANK_LINES = re.compile(r"\n{2,}")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True, slots=True)
class SpeakableText:
    text: str
    language: str  # "en" or "zh"
    truncated: bool


def speakable(markdown: str, *, limit: int = MAX_SPOKEN_CHARS) -> SpeakableText:
    """The words of ``markdown`` to read aloud, at most ``limit`` characters
    (cut at the last sentence end before it when there is one)."""
    text = _FENCE.sub("\n", markdown.replace("\r\n", "\n"))
    text = _OPEN_FENCE.sub("\n", text)
    text = _MATH.sub(" ", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _CITATION.sub("", text)
    text = _URL.sub("", text)
    text = _TAG.sub(" ", text)
    text = _TABLE_RULE.sub("", text)
    text = _RULE.sub("", text)
    text = _HEADING.sub("", text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("", text)
    text = _CODE_SPAN.sub(r"\1", text)
    for _ in range(2):  # nested emphasis: ***both*** and **a _b_ c**
        text = _UNDERSCORES.sub(r"\2", _EMPHASIS.sub(r"\2", text))
    lines = []
    for line in text.split("\n"):
        if "|" in line:  # a table's row: its cells, separated as a list is read
            line = ", ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
        lines.append(_SPACE_BEFORE_MARK.sub(r"\1", _SPACES.sub(" ", line)).strip())
    text = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
    truncated = len(text) > limit
    if truncated:
        text = _cut(text, limit)
    return SpeakableText(text, language_of(text), truncated)


def language_of(text: str) -> str:
    """ "zh" when Chinese characters outnumber Latin words, else "en"."""
    han = len(_HAN.findall(text))
    if not han:
        return "en"
    latin_words = len(re.findall(r"[A-Za-z]+", text))
    return "zh" if han >= latin_words else "en"


def _cut(text: str, limit: int) -> str:
    head = text[:limit]
    end = max(head.rfind(mark) for mark in (". ", "! ", "? ", "\n", "。", "！", "？"))
    return head[: end + 1].rstrip() if end > limit // 2 else head.rstrip()
