"""Turning a question into search terms for the trigram index (CJK-capable).

* Latin-script words are lower-cased; stop words are dropped; words of five or
  more letters lose a common English suffix (``-ing``, ``-ed``, ``-es``, ``-s``,
  ``-ly``) — with a substring (trigram) index the stem still finds every form.
* Runs of Chinese/Japanese/Korean characters have no spaces: they are split at
  question words and particles (什么, 怎么, 如何, 多少, 的, 是, 吗…). Each piece
  of three or more characters gives its overlapping three-character substrings
  (机器学习 → 机器学, 器学习), and a two-character piece (学习, 营收) is a short
  term. When some of a long piece's trigrams do not occur in the index, its
  two-character substrings are searched too (龙井茶产自 → 龙井, … so
  "龙井是杭州…" is found although the question's wording differs).
* Terms of three or more characters are trigram ``MATCH`` terms; one- or
  two-character ones (``AI``, 学习) are searched through the trigrams that
  start with them (see ``retrieval`` and ``plan``).
``highlight`` keeps stems and whole CJK pieces for snippets."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

log = logging.getLogger(__name__)

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(
    rf"(?P<cjk>[{_CJK_CLASS}]+)|(?P<word>[^\W_{_CJK_CLASS}]+(?:['’.\-][^\W_{_CJK_CLASS}]+)*)"
)
_STOP = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our ours out over
    own same she should so some such than that the their theirs them then there these they
    this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours tell please explain describe give show list find
    know say said does doesn't don't didn't isn't wasn't many much""".split()  # noqa: SIM905
)
#: Question words and particles that split a CJK run (longest first).
_CJK_STOP = sorted(
    """为什么 怎么样 是什么 有什么 有哪些 什么 怎么 怎样 如何 多少 哪些 哪个 哪里 哪儿 是否 有没有
    没有 请问 告诉 一下 我们 你们 他们 这个 那个 这些 那些 可以 能否 的 了 是 吗 呢 吧 啊 么 和
    与 及 或 在 把 被 请 问 也 都 就 还 而 之 其 该 谁 哪 几 有 我 你 他 她 它 这 那""".split(),  # noqa: SIM905
    key=len,
    reverse=True,
)
_CJK_SPLIT = re.compile("|".join(re.escape(word) for word in _CJK_STOP))
_SUFFIXES = ("ing", "ed", "es", "s", "ly")


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """``match``: terms for the trigram index (≥ 3 characters); ``short``: 1–2
    character terms; ``backoff``: per CJK piece of three or more characters,
    its trigrams and its two-character substrings (searched too when some of
    its trigrams do not occur in the index); ``highlight``: words for snippets."""

    match: tuple[str, ...] = ()
    short: tuple[str, ...] = ()
    highlight: tuple[str, ...] = ()
    backoff: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()

    @property
    def empty(self) -> bool:
        return not self.match and not self.short


def stem(word: str) -> str:
    """``growing`` → ``grow``, ``budgets`` → ``budget``: a prefix that still
    matches every form in a substring index. Short words stay whole."""
    if len(word) < 5 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def analyse(question: str) -> QueryTerms:
    """The search terms of ``question`` (see the module docstring)."""
    match: list[str] = []
    short: list[str] = []
    highlight: list[str] = []
    backoff: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for token in _TOKEN.finditer(question):
        if token.group("cjk"):
            backoff.extend(_cjk_terms(token.group("cjk"), match, short, highlight))
        else:
            _word_terms(token.group("word").lower(), match, short, highlight)
    if not match and not short:
        # only stop words or single characters: search what there is, whole
        fallback = [t.group(0).lower() for t in _TOKEN.finditer(question)]
        for term in fallback:
            (match if len(term) >= 3 else short).append(term)
        highlight.extend(fallback)
    return QueryTerms(_unique(match), _unique(short), _unique(highlight), tuple(backoff))


def _word_terms(word: str, match: list[str], short: list[str], highlight: list[str]) -> None:
    if word in _STOP or word.replace("’", "'") in _STOP:
        return
    if len(word) == 1 and not word.isdigit():
        return
    term = stem(word)
    highlight.append(term)
    (match if len(term) >= 3 else short).append(term)


def _cjk_terms(
    run: str, match: list[str], short: list[str], highlight: list[str]
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Add a CJK run's terms; return the back-off pairs of its long pieces."""
    backoff = []
    for piece in _CJK_SPLIT.split(run):
        if len(piece) >= 3:
            highlight.append(piece)
            trigrams = tuple(piece[i : i + 3] for i in range(len(piece) - 2))
            match.extend(trigrams)
            backoff.append((trigrams, tuple(piece[i : i + 2] for i in range(len(piece) - 1))))
        elif len(piece) == 2:
            highlight.append(piece)
            short.append(piece)
    return backoff


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for item in items if item))


def word_pattern(term: str) -> re.Pattern[str]:
    """A case-insensitive pattern for counting a short term: a Latin term only
    as a whole word (``AI`` not inside ``said``), CJK anywhere."""
    escaped = re.escape(term)
    if _TOKEN.fullmatch(term) and not re.search(f"[{_CJK_CLASS}]", term):
        return re.compile(rf"(?<![^\W_]){escaped}(?![^\W_])", re.IGNORECASE)
    return re.compile(escaped, re.IGNORECASE)


def occurrence_pattern(term: str) -> re.Pattern[str]:
    """How to count a term in a passage: short ones as :func:`word_pattern`,
    longer ones (stems) anywhere."""
    if len(term) < 3:
        return word_pattern(term)
    return re.compile(re.escape(term), re.IGNORECASE)
