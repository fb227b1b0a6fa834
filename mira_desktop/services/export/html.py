"""HTML export (PRODUCT.md §9): one self-contained page per thread — inline
stylesheet (``html_theme``), no external resource, readable with scripts off.
A tiny inline script only reveals the light/dark toggle button; the page's
Content-Security-Policy allows that script alone (by hash), so nothing a
message smuggled in could run even if it got past the sanitiser.

Assistant text is rendered from Markdown (``html_render``); user text,
thinking and tool arguments are escaped and shown as typed. ``for_print``
gives the variant for Qt's printing (Print / Save as PDF): light colours
written out, thinking expanded, no script and no custom properties."""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Callable, Sequence

from ...core.citation_links import link_citations
from ...core.models import Message, MessageRole
from ...core.transfer import AttachmentRecord, ThreadSnapshot
from .diagnostics import (
    APP_NAME,
    ExportMeta,
    arguments_text,
    diagnostics_line,
    duration_text,
    redacted_error,
    tool_calls,
)
from .html_render import MarkdownRenderer, escape, plain
from .html_theme import resolved_css, stylesheet
from .sources import answer_sources, source_snippet, source_title
from .tree import TreeLayout, layout

log = logging.getLogger(__name__)

THEME_SCRIPT = (
    "(function(){var r=document.documentElement,b=document.getElementById('theme-toggle');"
    "if(!b)return;b.hidden=false;b.addEventListener('click',function(){"
    "var d=r.getAttribute('data-theme')||(window.matchMedia&&"
    "matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light');"
    "r.setAttribute('data-theme',d==='dark'?'light':'dark');});})();"
)
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(THEME_SCRIPT.encode()).digest()).decode()
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'"
)

#: an image attachment's bytes by its SHA-256 (None: not in the media folder)
ImageSource = Callable[[str], "bytes | None"]
#: image types a page embeds (never SVG: it can hold scripts)
EMBEDDABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MAX_EMBEDDED_IMAGE = 8 * 1024 * 1024

_WHO = {
    MessageRole.USER: ("You", "user"),
    MessageRole.ASSISTANT: ("Assistant", "assistant"),
    MessageRole.TOOL: ("Tool", "tool"),
    MessageRole.SYSTEM_CARD: ("Note", "note"),
}


class _Page:
    """Builds one thread's page (keeps the renderer and the print switch)."""

    def __init__(
        self, renderer: MarkdownRenderer, for_print: bool, images: ImageSource | None = None
    ) -> None:
        self.renderer = renderer
        self.for_print = for_print
        self.images = images
        # Qt's rich text knows no HTML5 sectioning elements: plain divs in print
        self.article, self.header_tag, self.footer_tag = (
            ("div", "div", "div") if for_print else ("article", "header", "footer")
        )

    def thinking(self, message: Message) -> str:
        took = duration_text(message.thinking_ms)
        label = f"Thinking · {took}" if took else "Thinking"
        body = plain(message.thinking.strip())
        if self.for_print:
            return f'<div class="thinking"><div class="label">{label}</div>{body}</div>'
        return f'<details class="thinking"><summary>{label}</summary>{body}</details>'

    def body(self, message: Message) -> str:
        if not message.text.strip():
            return '<div class="body note">(no text)</div>'
        if message.role is MessageRole.ASSISTANT:
            html = self.renderer.markdown(message.text)
            if found := answer_sources(message):  # [n] goes to its source below
                numbers = frozenset(s.number for s in found.sources)
                html = link_citations(html, numbers, lambda n: f"#{_source_id(message, n)}")
            return f'<div class="body md">{html}</div>'
        return f'<div class="body">{plain(message.text)}</div>'

    def header(self, message: Message, versions: dict[str, tuple[int, int]]) -> str:
        who, _ = _WHO.get(message.role, (str(message.role), "note"))
        bits = [f'<span class="who">{escape(who)}</span>']
        if message.model and message.role is MessageRole.ASSISTANT:
            bits.append(f'<span class="meta">{escape(message.model)}</span>')
        index, count = versions.get(message.id, (1, 1))
        if count > 1:
            bits.append(f'<span class="badge">version {index}/{count}</span>')
        if str(message.status) != "complete":
            status = escape(str(message.status))
            bits.append(f'<span class="badge {status}">{status}</span>')
        tag = self.header_tag
        return f'<{tag} class="head">{" ".join(bits)}</{tag}>'

    def figures(self, attachments: Sequence[AttachmentRecord]) -> list[str]:
        """The message's images, embedded (the page stays self-contained): PNG,
        JPEG, GIF and WebP up to ``MAX_EMBEDDED_IMAGE`` bytes, as ``data:``
        URLs the page's policy allows (``img-src data:``), nothing else."""
        if self.images is None:
            return []
        out = []
        for record in attachments:
            if record.kind != "image" or not record.available or record.mime not in EMBEDDABLE:
                continue
            if record.size > MAX_EMBEDDED_IMAGE:
                continue
            data = self.images(record.sha256)
            if not data:
                continue
            url = f"data:{record.mime};base64,{base64.b64encode(data).decode('ascii')}"
            name = escape(record.name)
            out.append(
                f'<figure class="image"><img src="{url}" alt="{name}">'
                f"<figcaption>{name}</figcaption></figure>"
            )
        return out

    def extras(self, message: Message, attachments: Sequence[AttachmentRecord]) -> list[str]:
        out = self.figures(attachments)
        if attachments:
            items = "".join(
                f"<li>{escape(a.name)} ({escape(a.mime)}, {a.size} bytes"
                f"{'' if a.available else ', not in this library'})</li>"
                for a in attachments
            )
            out.append(f'<div class="attachments">Attachments<ul>{items}</ul></div>')
        error = redacted_error(message.error)
        if error:
            code = f" ({escape(str(error.get('code')))})" if error.get("code") else ""
            hint = f"<br>{escape(str(error['hint']))}" if error.get("hint") else ""
            text = escape(str(error.get("message", "")))
            out.append(
                f'<div class="error" role="note"><strong>Error{code}:</strong> {text}{hint}</div>'
            )
        if found := answer_sources(message):
            items = "".join(
                f'<li value="{s.number}" id="{_source_id(message, s.number)}">'
                f"{escape(source_title(s))}"
                + (f"<br>{escape(source_snippet(s))}" if s.snippet.strip() else "")
                + "</li>"
                for s in found.sources
            )
            out.append(f'<div class="sources">{escape(found.heading)}<ol>{items}</ol></div>')
        for call in tool_calls(message.data):
            status = f" · {escape(str(call['status']))}" if call.get("status") else ""
            if call.get("summary"):
                status += f" · {escape(str(call['summary']))}"
            args = arguments_text(call["arguments"]) if call["arguments"] is not None else ""
            out.append(
                f'<div class="tool"><div class="label">Tool call <code>{escape(call["name"])}</code>'
                f"{status}</div><pre><code>{escape(args)}</code></pre></div>"
            )
        return out

    def message(
        self,
        message: Message,
        versions: dict[str, tuple[int, int]],
        attachments: Sequence[AttachmentRecord],
    ) -> str:
        _, css = _WHO.get(message.role, ("", "note"))
        parts = [self.header(message, versions)]
        if message.thinking.strip():
            parts.append(self.thinking(message))
        parts.append(self.body(message))
        parts.extend(self.extras(message, attachments))
        facts = " · ".join(f"{label}: {escape(v)}" for label, v in diagnostics_line(message))
        parts.append(f'<{self.footer_tag} class="diag">{facts}</{self.footer_tag}>')
        tag = self.article
        return f'<{tag} class="msg {css}" id="m-{escape(message.id)}">{"".join(parts)}</{tag}>'


def _source_id(message: Message, number: int) -> str:
    """The anchor of an answer's source ``number`` in the page."""
    return escape(f"m-{message.id}-s{number}")


def _facts(snapshot: ThreadSnapshot, meta: ExportMeta, tree: TreeLayout) -> str:
    thread = snapshot.thread
    rows = [
        ("Exported", f"{meta.exported_at} by {APP_NAME} {meta.app_version}"),
        ("Thread", thread.id),
        ("Created", thread.created_at),
        ("Updated", thread.updated_at),
        ("Workspace", snapshot.workspace_name),
        ("Model", " / ".join(x for x in (snapshot.provider_name, thread.model) if x)),
        ("Source", thread.source),
        (
            "Messages",
            f"{len(snapshot.messages) - len(tree.trashed_ids)} shown, "
            f"{len(tree.others)} other branch(es), {len(tree.trashed_ids)} in the trash",
        ),
    ]
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows if v)
    return f'<table class="facts">{body}</table>'


def _conversation(page: _Page, snapshot: ThreadSnapshot, tree: TreeLayout) -> list[str]:
    att = snapshot.attachments
    out = ["<h2>Conversation</h2>"]
    out += [page.message(m, tree.versions, att.get(m.id, ())) for m in tree.active]
    if not tree.active:
        out.append('<p class="note">(no messages on the active branch)</p>')
    if tree.others:
        out.append("<h2>Other versions</h2>")
    for number, segment in enumerate(tree.others, start=1):
        after = (
            f"after “{' '.join(segment.after.text.split())[:80]}”"
            if segment.after
            else "from the start"
        )
        out.append(f'<h3 class="branch">Branch {number} — {escape(after)}</h3>')
        out += [page.message(m, tree.versions, att.get(m.id, ())) for m in segment.messages]
    return out


def thread_html(
    snapshot: ThreadSnapshot,
    meta: ExportMeta,
    *,
    for_print: bool = False,
    renderer: MarkdownRenderer | None = None,
    images: ImageSource | None = None,
) -> str:
    """The thread as one self-contained HTML document; ``images`` gives an
    image attachment's bytes by hash (embedded), or None when it is gone."""
    tree = layout(snapshot)
    page = _Page(renderer or MarkdownRenderer(), for_print, images)
    title = escape(" ".join(snapshot.thread.title.split()) or "Untitled")
    head = [
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{APP_NAME} {escape(meta.app_version)}">',
        f"<title>{title}</title>",
    ]
    if for_print:
        head.append(f"<style>{resolved_css()}</style>")
    else:
        head.insert(1, f'<meta http-equiv="Content-Security-Policy" content="{CSP}">')
        head.append(f"<style>\n{stylesheet()}\n</style>")
    toggle = (
        "" if for_print else '<button type="button" id="theme-toggle" hidden>Light / dark</button>'
    )
    body = [toggle, f"<h1>{title}</h1>", _facts(snapshot, meta, tree)]
    body += _conversation(page, snapshot, tree)
    if not for_print:
        body.append(f"<script>{THEME_SCRIPT}</script>")
    return (
        '<!DOCTYPE html>\n<html lang="und">\n<head>\n'
        + "\n".join(head)
        + "\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
