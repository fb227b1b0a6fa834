"""Markdown → Qt rich text for the timeline: structure, safety, highlighting,
half-written input, and the incremental document used while streaming."""

from __future__ import annotations

import time

import pytest
from PySide6.QtGui import QTextDocument

from mira_desktop.ui.timeline.markdown import (
    render_markdown,
    render_markdown_blocks,
    render_markdown_split,
)
from mira_desktop.ui.timeline.rich_text import LiveMarkdown

SAMPLE = """# Title

Some **bold** and `code` text, see [Qt](https://qt.io).

1. one
2. two
   - nested

> quoted

| a | b |
|:--|--:|
| 1 | 2 |

```python
def f(x):
    return x + 1
```

Trailing paragraph with https://example.com/x.
"""


def test_headings_lists_tables_and_links(qapp):
    html = render_markdown(SAMPLE, dark=False)
    assert "<h1" in html and "Title</h1>" in html
    assert "<ol" in html and "<li>one</li>" in html and "<ul" in html
    assert "<table" in html and "<th" in html and "<td" in html
    assert '<a href="https://qt.io">Qt</a>' in html
    assert "<strong>bold</strong>" in html
    assert 'align="right"' in html  # column alignment survives in a Qt-readable form


def test_bare_urls_become_links(qapp):
    html = render_markdown("Visit https://example.com/a?b=1, then leave.", dark=False)
    assert '<a href="https://example.com/a?b=1">' in html
    assert "</a>, then leave." in html


def test_code_block_is_highlighted_with_inline_styles_and_copy_anchor(qapp):
    html = render_markdown(SAMPLE, dark=False)
    assert "<pre" in html
    assert '<span style="color:' in html  # pygments, noclasses
    assert 'href="copy-code:0"' in html
    assert "class=" not in html


def test_light_and_dark_styles_differ(qapp):
    assert render_markdown(SAMPLE, dark=False) != render_markdown(SAMPLE, dark=True)


def test_unknown_language_is_plain(qapp):
    rendered = render_markdown_blocks("```nosuchlang\na < b\n```", dark=False)
    assert "a &lt; b" in rendered.html
    assert rendered.code_blocks == ("a < b",)


def test_code_blocks_are_numbered_and_kept_raw(qapp):
    text = "```\nfirst <x>\n```\n\ntext\n\n    indented\n\n```js\nlet a = 1;\n```"
    rendered = render_markdown_blocks(text, dark=False)
    assert rendered.code_blocks == ("first <x>", "indented", "let a = 1;")
    for n in range(3):
        assert f'href="copy-code:{n}"' in rendered.html


def test_raw_html_is_shown_as_text(qapp):
    html = render_markdown('<script>alert("x")</script>\n\nhi <b>there</b>', dark=False)
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert "&lt;b&gt;there&lt;/b&gt;" in html
    doc = QTextDocument()
    doc.setHtml(html)
    assert '<script>alert("x")</script>' in doc.toPlainText()


@pytest.mark.parametrize(
    "source",
    [
        "[click](javascript:alert(1))",
        "[file](file:///etc/passwd)",
        "[ftp](ftp://example.com/x)",
        "[rel](./notes.md)",
        "[data](data:text/html;base64,PHNjcmlwdD4=)",
    ],
)
def test_only_web_and_mail_links_are_clickable(qapp, source):
    html = render_markdown(source, dark=False)
    assert "<a " not in html


def test_mail_links_are_clickable(qapp):
    assert '<a href="mailto:a@b.example">' in render_markdown("[m](mailto:a@b.example)", dark=False)


def test_images_are_never_loaded(qapp):
    html = render_markdown(
        "![cat](https://example.com/cat.png) ![x](file:///etc/passwd)", dark=False
    )
    assert "<img" not in html
    assert '<a href="https://example.com/cat.png">' in html


def test_unclosed_fence_renders_as_code_block(qapp):
    rendered = render_markdown_blocks("Here:\n\n```python\nprint('half", dark=False)
    assert "<pre" in rendered.html
    assert rendered.code_blocks == ("print('half",)


def _shown(markdown: str) -> str:
    document = QTextDocument()
    document.setHtml(render_markdown(markdown, dark=False))
    return document.toPlainText()


def test_deeply_nested_text_is_never_dropped(qapp):
    """markdown-it stops at a nesting depth and skipped the rest: a list 30
    deep showed items 0–8, text under 30 ``>`` vanished. Deeper than the
    timeline shows nested, the lines come as plain text, markers and all."""
    nested = "\n".join("  " * i + f"- item {i}" for i in range(30))
    shown = _shown(nested + "\n- back outside\n\nafter the list")
    assert all(f"item {i}" in shown for i in range(30))
    assert shown.index("item 29") < shown.index("back outside") < shown.index("after the list")
    assert "secret text" in _shown(">" * 30 + " secret text\n\nand on")
    assert _shown(">" * 30 + " secret text\n\nand on").endswith("and on")
    assert "deep" in _shown(">" * 3000 + " deep")  # bounded nesting, no recursion error


def _unbroken_token(length: int) -> str:
    import random
    import string

    return "".join(random.Random(3).choices(string.ascii_letters + string.digits, k=length))


def test_a_long_unbroken_token_is_laid_out_at_a_real_width(qapp):
    """A view laid its text out at width 0 until height-for-width gave it one:
    an unbroken token then broke after every character, at a cost growing
    with the square of its length (100 KB: over 20 s, the window frozen).
    The width is set before any content; long runs get break opportunities
    that copying leaves out (budget: the thread benchmark's long-token figure)."""
    from mira_desktop.ui.timeline.rich_text import RichTextView

    zero_width_space = "\u200b"

    view = RichTextView()
    assert view.lineWrapColumnOrWidth() > 0  # before any height-for-width
    token = _unbroken_token(20_000)
    rendered = render_markdown_blocks(f"Encoded:\n\n```\n{token}\n```\n\nand {token}", dark=False)
    view.set_rendered(rendered)
    assert view.document().textWidth() == view.lineWrapColumnOrWidth() > 0
    block, lines = view.document().begin(), 0
    while block.isValid():
        lines += block.layout().lineCount()
        block = block.next()
    assert 0 < lines < 2 * len(token) / 40  # whole lines, not a character each
    assert rendered.code_blocks == (token,)  # Copy of the code block: as written
    view.selectAll()
    copied = view.createMimeDataFromSelection().text()
    assert zero_width_space in view.document().toPlainText()
    assert zero_width_space not in copied and copied.count(token) == 2
    # words, names and links stay whole (find in the thread matches them)
    url = "https://example.com/" + "a" * 120
    assert zero_width_space not in render_markdown(
        f"see {url} and `render_markdown_blocks`", dark=False
    )


def test_chinese_text(qapp):
    html = render_markdown("你好，**世界**！", dark=False)
    assert "你好，<strong>世界</strong>！" in html


def test_split_keeps_last_block_as_tail(qapp):
    split = render_markdown_split("para one\n\n```\ncode\n```\n\nlast par", dark=False)
    assert split.stable_chars == len("para one\n\n```\ncode\n```\n\n")
    assert "para one" in split.stable.html and "last par" not in split.stable.html
    assert "last par" in split.tail.html
    assert split.stable.code_blocks == ("code",)


def _streamed_document(text: str, step: int) -> QTextDocument:
    doc = QTextDocument()
    doc.setTextWidth(600)
    live = LiveMarkdown(doc)
    for end in range(1, len(text) + 1, step):
        live.set_text(text[:end], dark=False)
    live.set_text(text, dark=False)
    assert live.code_blocks == render_markdown_blocks(text, dark=False).code_blocks
    return doc


@pytest.mark.parametrize("step", [1, 7, 40])
def test_incremental_document_matches_full_render(qapp, step):
    streamed = _streamed_document(SAMPLE, step)
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(SAMPLE, dark=False))
    assert streamed.toPlainText() == full.toPlainText()
    assert streamed.size().height() == pytest.approx(full.size().height(), abs=1)


def test_render_of_20kb_answer_is_fast(qapp):
    paragraph = "Lorem ipsum **dolor** sit amet, `consectetur` adipiscing elit. " * 4 + "\n\n"
    code = "```python\n" + "".join(f"x{i} = {i} * 2  # c\n" for i in range(12)) + "```\n\n"
    text = ""
    while len(text) < 20_000:
        text += paragraph * 3 + code
    render_markdown(text, dark=False)  # warm the lexer cache
    started = time.perf_counter()
    render_markdown(text + "tail", dark=False)
    assert time.perf_counter() - started < 0.5  # generous: timing budgets live in benchmarks


def test_budgeted_live_rendering_catches_up_to_the_full_render(qapp):
    from mira_desktop.ui.timeline.live_markdown import LiveMarkdown

    text = SAMPLE * 6
    doc = QTextDocument()
    doc.setTextWidth(600)
    live = LiveMarkdown(doc)
    live.set_text(text, dark=False, budget=200)
    assert live.pending  # the rest is shown as plain text meanwhile
    assert doc.toPlainText().replace("\u2029", "\n").count("\n") > 0
    steps = 0
    while live.pending:
        live.set_text(text, dark=False, budget=200)
        steps += 1
        assert steps < len(text)
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(text, dark=False))
    assert doc.toPlainText() == full.toPlainText()
    assert live.code_blocks == render_markdown_blocks(text, dark=False).code_blocks


def test_budgeted_steps_remove_only_the_plain_text_they_render(qapp):
    """A step replaces the rendered tail and the plain text it now renders;
    the plain rest after it stays in the document (not rebuilt every step),
    and the result equals the full render, emoji (two UTF-16 units) included."""
    from mira_desktop.ui.timeline.live_markdown import LiveMarkdown

    text = ("para 😀 **bold** text\n\n" * 40) + "- a\n- b\n\n```\ncode\n```\n\n" + "end 😀"
    doc = QTextDocument()
    doc.setTextWidth(600)
    live = LiveMarkdown(doc)
    live.set_text(text[:300], dark=False, budget=100)  # a stable block exists
    live.set_text(text, dark=False, budget=0)  # budget 0: the new text only shown plainly
    assert live.pending
    removed: list[int] = []
    doc.documentLayout()  # contentsChange is emitted once the document has a layout
    doc.contentsChange.connect(lambda _pos, gone, _added: removed.append(gone))
    while live.pending:
        live.set_text(text, dark=False, budget=100)
    assert max(removed) < 400  # a step never removes the whole plain rest (~900 chars)
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(text, dark=False))
    assert doc.toPlainText() == full.toPlainText()


def test_prepared_steps_only_edit_the_document_and_end_equal_to_the_full_render(qapp):
    """``prepare`` parses and imports the next step ahead (one pass of the loop);
    the step itself then renders no markdown and imports no HTML, only edits the
    document. A prepared step voided by an edit still renders correctly."""
    from mira_desktop.ui.timeline import live_markdown
    from mira_desktop.ui.timeline.live_markdown import LiveMarkdown

    text = ("para 你好 **bold** text\n\n- a\n- b\n\n```\ncode\n```\n\n" * 30) + "end"
    doc = QTextDocument()
    doc.setTextWidth(600)
    live = LiveMarkdown(doc)
    live.set_text(text[:300], dark=False, budget=150)  # a stable block exists
    live.set_text(text, dark=False, budget=0)
    renders: list[int] = []
    real = live_markdown.render_markdown_split

    def counting(source, **kwargs):
        renders.append(len(source))
        return real(source, **kwargs)

    live_markdown.render_markdown_split = counting
    try:
        steps = 0
        while live.pending:
            assert live.prepare(150)
            assert not live.prepare(150)  # already prepared
            prepared = len(renders)
            live.set_text(text, dark=False, budget=150)
            assert len(renders) == prepared  # the step used the prepared rendering
            steps += 1
        assert steps > 3
        live.set_text(text + " more", dark=False, budget=0)
        assert live.prepare(150)
        live.set_text(text + " more and more", dark=False, budget=150)  # voids it
        assert len(renders) == prepared + 2  # rendered again, for the longer text
        assert live.prepare(150) is False and not live.pending
        live.set_text("other " + text, dark=False)  # not an extension: starts over
    finally:
        live_markdown.render_markdown_split = real
    live.set_text(text, dark=False)
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(text, dark=False))
    assert doc.toPlainText() == full.toPlainText()
    assert doc.toHtml() == full.toHtml()
    assert live.code_blocks == render_markdown_blocks(text, dark=False).code_blocks


def test_once_complete_a_long_last_block_renders_alone_then_the_steps_go_on(qapp):
    """A block longer than a step waits (plain) while the text may still grow.
    Once the text is complete that block is whole: one step renders it and only
    a step's budget after it — not everything left, which was a 30 ms pass at
    the end of a long answer."""
    from mira_desktop.ui.timeline.live_markdown import LiveMarkdown

    head = "word **b** " * 60  # one paragraph, ~660 characters
    rest = "\n\n" + "para *i* text\n\n" * 100  # ~1,600 characters more
    doc = QTextDocument()
    doc.setTextWidth(600)
    live = LiveMarkdown(doc)
    live.set_text(head, dark=False, budget=100)  # renders its first 100 characters
    live.set_text(head, dark=False, budget=100)
    assert live.blocked and not live.pending
    live.set_text(head + rest, dark=False, budget=100, complete=True)
    assert not live.blocked and live.pending
    assert "**" not in doc.toPlainText()[: len(head) - 20]  # the long block is rendered
    assert "para *i*" in doc.toPlainText()  # the rest waits for its steps
    steps = 0
    while live.pending:
        live.set_text(head + rest, dark=False, budget=100, complete=True)
        steps += 1
    assert steps > 5
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(head + rest, dark=False))
    assert doc.toPlainText() == full.toPlainText()


def test_an_answer_ending_in_a_block_longer_than_a_step_renders_it_after_the_end(qapp):
    """The view passes the end of the stream on (``paced=False``): a last block
    longer than a step, left plain while it streamed, is rendered by a step of
    its own after the end, without an unbudgeted pass."""
    from mira_desktop.ui.timeline.rich_text import RichTextView

    text = "intro *i*\n\n" + "word **b** " * 200  # the last paragraph: ~2,200 characters
    view = RichTextView()
    view.setLineWrapColumnOrWidth(600)
    for end in range(100, len(text), 300):
        view.set_markdown_live(text[:end], dark=False, budget=500, paced=True)
    view.set_markdown_live(text, dark=False, budget=500, paced=True)
    paced = [True]
    view.render_pending.connect(  # what the message widget does when a step is due
        lambda: view.set_markdown_live(text, dark=False, budget=500, paced=paced[0])
    )
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.002)
    assert "**" in view.toPlainText()  # streaming: the long last block waits, plain
    assert "*i*" not in view.toPlainText()  # (what came before it is rendered)
    paced[0] = False
    view.set_markdown_live(text, dark=False, budget=500, paced=False)  # the answer ended
    _wait_until_rendered(qapp, view, text, timeout=10)


def test_a_block_longer_than_the_budget_waits_and_renders_when_unbudgeted(qapp):
    from mira_desktop.ui.timeline.live_markdown import LiveMarkdown

    text = "word **b** " * 60  # one paragraph, ~660 characters
    doc = QTextDocument()
    live = LiveMarkdown(doc)
    live.set_text(text, dark=False, budget=100)  # renders its first 100 characters
    live.set_text(text, dark=False, budget=100)
    assert live.blocked and not live.pending  # no step can progress: none is asked for
    live.set_text(text, dark=False)  # e.g. the answer ended
    assert not live.blocked and not live.pending
    full = QTextDocument()
    full.setHtml(render_markdown(text, dark=False))
    assert doc.toPlainText() == full.toPlainText()


def test_live_cadence_keeps_steps_to_a_share_of_the_thread():
    from mira_desktop.ui.timeline.live_cadence import LiveCadence, paced_wait_ms

    now = [0.0]
    cadence = LiveCadence(share=0.2, floor_ms=50, ceiling_ms=200, idle_ms=8, clock=lambda: now[0])
    assert cadence.due()
    cadence.spent(0.020, paced=True)  # 20 ms of work → 80 ms pause (20 % of the time)
    assert not cadence.due() and cadence.wait_ms() == 80
    now[0] = 0.079
    assert not cadence.due()
    now[0] = 0.080
    assert cadence.due()
    cadence.spent(0.001, paced=True)  # cheap work still waits the floor
    assert cadence.wait_ms() == 50
    cadence.spent(0.5, paced=True)  # expensive work: new text still shows within the ceiling
    assert cadence.wait_ms() == 200
    cadence.spent(0.005, paced=False)  # the stream ended: short pauses
    assert cadence.wait_ms() == 8
    cadence.release()
    assert cadence.due()
    assert paced_wait_ms(0.010, share=0.1, floor_ms=0, ceiling_ms=1000) == 90


def test_paced_live_view_renders_in_spaced_steps_and_ends_equal_to_the_full_render(qapp):
    """While streaming (``paced``), updates between due steps only append plain
    text (no markdown render); once the stream ends the steps catch up and the
    document equals the full render."""
    from mira_desktop.ui.timeline import rich_text
    from mira_desktop.ui.timeline.rich_text import RichTextView

    text = ("para **bold** `code` text\n\n" * 120) + "```python\nx = 1\n```\n\nend"
    view = RichTextView()
    view.setLineWrapColumnOrWidth(600)
    renders: list[int] = []
    real = rich_text.LiveMarkdown.set_text

    def counting(self, text, *, dark, budget=None, complete=False):
        if budget != 0:
            renders.append(len(text))
        real(self, text, dark=dark, budget=budget, complete=complete)

    rich_text.LiveMarkdown.set_text = counting
    try:
        for end in range(50, len(text), 50):  # 60+ updates in a burst
            view.set_markdown_live(text[:end], dark=False, budget=500, paced=True)
        assert len(renders) == 1  # only the first update rendered markdown
        assert view.markdown_pending()
        assert view.toPlainText().endswith(text[:end].rsplit("\n", 1)[-1])  # new text shown
        # what the message widget does when a step is due, once the stream ended
        view.render_pending.connect(
            lambda: view.set_markdown_live(text, dark=False, budget=500, paced=False)
        )
        view.set_markdown_live(text, dark=False, budget=500, paced=False)
        deadline = time.monotonic() + 10
        while view.markdown_pending() and time.monotonic() < deadline:
            qapp.processEvents()
            time.sleep(0.001)
        assert len(renders) > 3  # in several bounded steps
    finally:
        rich_text.LiveMarkdown.set_text = real
    assert not view.markdown_pending()
    full = QTextDocument()
    full.setHtml(render_markdown(text, dark=False))
    assert view.document().toPlainText() == full.toPlainText()
    assert view.code_blocks() == render_markdown_blocks(text, dark=False).code_blocks


def test_stream_buffer_interval_adapts_to_the_cost_of_a_flush(qapp):
    from mira_desktop.ui.timeline.stream_buffer import StreamBuffer

    buffer = StreamBuffer(40)
    assert buffer.next_interval_ms(0.001) == 40  # cheap flushes: the base interval
    assert buffer.next_interval_ms(0.020) > 100  # 20 ms flushes: ≥ 5× that between them
    assert buffer.next_interval_ms(5.0) <= 250  # never longer than the ceiling
    assert StreamBuffer(0).next_interval_ms(0.5) == 0


def test_paced_steps_catch_up_while_streaming_even_if_the_timer_fires_early(qapp):
    """The step timer is a coarse QTimer, which fires up to 5 % before the
    pause the cadence asked for. The step must run all the same: refused as
    "not due", it was pushed back by a whole pause every time and the markdown
    of a paused stream never caught up (a CI flake of
    ``test_streaming_is_coalesced``). The view's clock is frozen here, so every
    firing is "early" by the cadence's reckoning."""
    from mira_desktop.ui.timeline.rich_text import RichTextView

    frozen = [1000.0]
    view = RichTextView(clock=lambda: frozen[0])
    view.setLineWrapColumnOrWidth(600)
    text = "para **bold** `code` text\n\n" * 80
    view.set_markdown_live(text, dark=False, budget=300, paced=True)
    assert view.markdown_pending()
    _step_until_rendered(qapp, view, text, budget=300, timeout=10)


def test_steps_shrink_on_a_machine_too_slow_for_their_budget(qapp):
    """A step's longest pass should take ~4 ms (``STEP_TARGET_S``); the same
    character budget takes longer on a slower machine, so the view renders
    less per step there (never under a quarter of the budget). The view's
    clock advances 20 ms at every reading here: every pass looks slow."""
    from mira_desktop.ui.timeline.live_cadence import MIN_STEP_SCALE, adapted_step_scale
    from mira_desktop.ui.timeline.rich_text import RichTextView

    assert adapted_step_scale(1.0, 0.002, target_s=0.004) == 1.0  # fast enough: unchanged
    assert adapted_step_scale(1.0, 0.008, target_s=0.004) == 0.75  # halfway to 0.5
    assert adapted_step_scale(0.3, 0.1, target_s=0.004) == MIN_STEP_SCALE
    assert adapted_step_scale(0.5, 0.0) == 0.5  # no measurement, no change

    ticks = [0.0]

    def slow_clock() -> float:
        ticks[0] += 0.020
        return ticks[0]

    view = RichTextView(clock=slow_clock)
    view.setLineWrapColumnOrWidth(600)
    text = "para **bold** `code` text\n\n" * 200
    view.set_markdown_live(text, dark=False, budget=1000, paced=True)
    assert view.live_step_chars() == 1000  # the size of the first step (this pass: plain)
    seen: list[int] = []

    def step() -> None:  # what the message widget does, noting each step's size
        view.set_markdown_live(text, dark=False, budget=1000, paced=True)
        seen.append(view.live_step_chars())

    view.render_pending.connect(step)
    _wait_until_rendered(qapp, view, text, timeout=20)
    assert seen[0] == 1000  # the first step had the whole budget
    assert min(seen) == 1000 * MIN_STEP_SCALE  # then less and less
    assert seen == sorted(seen, reverse=True)
    # a view sharing the sizer (the next answer of the timeline) starts there
    from mira_desktop.ui.timeline.live_cadence import StepSizer

    sizer = StepSizer()
    first = RichTextView(clock=slow_clock, sizer=sizer)
    first.set_markdown_live(text, dark=False, budget=1000, paced=False)
    sizer.step_cost(0.1)
    sizer.step_cost(0.1)
    second = RichTextView(clock=slow_clock, sizer=sizer)
    second.setLineWrapColumnOrWidth(600)
    second.set_markdown_live(text[:600], dark=False, budget=1000, paced=True)
    assert second.live_step_chars() == int(1000 * sizer.scale) < 1000


def _live_after_a_stable_block(text: str):
    """A ``LiveMarkdown`` showing the start of ``text`` (one stable block
    rendered) and the characters each later document change adds."""
    from mira_desktop.ui.timeline.live_markdown import LiveMarkdown

    doc = QTextDocument()
    doc.setTextWidth(600)
    live = LiveMarkdown(doc)
    live.set_text(text[:200], dark=False, budget=500)  # a stable block exists
    doc.documentLayout()  # contentsChange is emitted once the document has a layout
    added: list[int] = []
    doc.contentsChange.connect(lambda _pos, _gone, count: added.append(count))
    return doc, live, added


def test_a_step_lays_out_only_what_it_changed_not_the_plain_rest_after_it(qapp):
    """An update adds at most ``PLAIN_STEP_CHARS`` of plain text; and a step's
    edit (one edit block: one layout) covers the markdown it rendered, not the
    plain text after it, which would be laid out again at every step (the
    cost of a step then grew with the unrendered rest: 10-18 ms)."""
    from mira_desktop.ui.timeline.live_markdown import PLAIN_STEP_CHARS

    text = "para **bold** text and more words\n\n" * 700  # ~25,000 characters
    doc, live, added = _live_after_a_stable_block(text)
    live.set_text(text, dark=False, budget=500)
    steps = 0
    while live.pending:
        live.set_text(text, dark=False, budget=500)
        steps += 1
        assert steps < 200
    assert max(added) <= PLAIN_STEP_CHARS + 1  # (+1: a block separator)
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(text, dark=False))
    assert doc.toPlainText() == full.toPlainText()


def test_once_complete_the_plain_rest_runs_only_a_little_ahead_of_the_markdown(qapp):
    """After the answer has ended, a step inserts about the plain text it
    rendered, never the next ``PLAIN_STEP_CHARS`` until the whole rest is plain
    (work the following steps undo: ~2 ms a step, a seventh of a frame)."""
    from mira_desktop.ui.timeline.live_markdown import PLAIN_LEAD_CHARS

    paragraph = "para **bold** text and more words\n\n"
    text = paragraph * 700  # ~25,000 characters
    doc, live, added = _live_after_a_stable_block(text)
    live.set_text(text, dark=False, budget=500, complete=True)
    most_plain = 0
    steps = 0
    while live.pending:
        # the markers a plain paragraph still shows; rendered ones show none
        most_plain = max(most_plain, doc.toPlainText().count("**") // 2)
        live.set_text(text, dark=False, budget=500, complete=True)
        steps += 1
        assert steps < 400
    assert most_plain * len(paragraph) <= PLAIN_LEAD_CHARS + len(paragraph)
    assert max(added) <= PLAIN_LEAD_CHARS + 1  # (+1: a block separator)
    full = QTextDocument()
    full.setTextWidth(600)
    full.setHtml(render_markdown(text, dark=False))
    assert doc.toPlainText() == full.toPlainText()


def test_more_new_text_than_a_step_is_shown_plainly_first_then_rendered_in_steps(qapp):
    """A fast stream's first flush (or an answer that arrived at once) brings
    more text than one step renders: that pass only shows it as plain text
    (it cost 7-11 ms to render and lay out with it), the steps follow."""
    from mira_desktop.ui.timeline.rich_text import RichTextView

    text = "para **bold** `code` text\n\n" * 200  # ~5,400 characters
    view = RichTextView()
    view.setLineWrapColumnOrWidth(600)
    view.set_markdown_live(text, dark=False, budget=500, paced=True)
    assert view.toPlainText().startswith("para **bold** `code` text")  # plain, not rendered
    assert view.markdown_pending()
    _step_until_rendered(qapp, view, text, budget=500, timeout=20)
    assert "**" not in view.toPlainText()


def _step_until_rendered(qapp, view, text: str, *, budget: int, timeout: float) -> None:
    """Run the view's steps (as the message widget does while an answer still
    streams) until the markdown has caught up; it must equal the full render."""
    view.render_pending.connect(
        lambda: view.set_markdown_live(text, dark=False, budget=budget, paced=True)
    )
    _wait_until_rendered(qapp, view, text, timeout=timeout)


def _wait_until_rendered(qapp, view, text: str, *, timeout: float) -> None:
    """Run the event loop until the view's markdown has caught up (its steps
    connected already); it must equal the full render of ``text``."""
    deadline = time.monotonic() + timeout
    while view.markdown_pending() and time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.002)
    assert not view.markdown_pending()
    full = QTextDocument()
    full.setHtml(render_markdown(text, dark=False))
    assert view.document().toPlainText() == full.toPlainText()
