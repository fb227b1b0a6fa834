"""``mira-desktop kb ...``: knowledge bases from the command line.

``kb create NAME`` · ``kb add NAME PATH...`` (progress on stderr, summary on
stdout; each path not found named on stderr; exit 1 when nothing was added or
updated and some path failed or was not found — files merely unchanged are a
success) · ``kb list [NAME]`` (bases with documents, passages and index size; with
NAME its documents) · ``kb search NAME QUERY`` (ranked passages with document,
location, snippet and score) · ``kb delete NAME`` (threads keep their history) ·
``kb rename NAME NEW`` · ``kb remove NAME DOC`` · ``kb reindex NAME [--full]`` ·
``kb embed NAME --provider P --model M`` (configure embeddings and embed the
passages) · ``kb rerank NAME --provider P --model M | --off`` ·
``kb bind NAME --thread ID`` · ``kb unbind --thread ID``. ``--json`` prints one
JSON object instead. Ctrl+C during ``add``, ``reindex`` or ``embed`` stops after
the current file; what was indexed stays."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..bootstrap import Services
from ..core.audio_formats import AUDIO_SKIPPED
from ..core.errors import ConfigError
from ..core.knowledge import IngestProgress, IngestReport, KnowledgeBaseStats, location_label
from ..loop_signals import add_handler
from ..services.readers import human_size
from ..services.search import render_marked
from .output import print_json, print_table

NAME = "kb"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    kb = commands.add_parser("kb", help="knowledge bases: add documents, search, bind threads")
    sub = kb.add_subparsers(dest="kb_command", metavar="ACTION", required=True)
    _named(sub, "create", "create a knowledge base")
    add = _named(sub, "add", "add files and folders (recursively)")
    add.add_argument("paths", nargs="+", metavar="PATH")
    lst = sub.add_parser("list", help="list knowledge bases, or the documents of one")
    lst.add_argument("name", nargs="?")
    lst.add_argument("--json", action="store_true")
    search = _named(sub, "search", "search a knowledge base")
    search.add_argument("query", nargs="+", metavar="QUERY")
    search.add_argument("--limit", type=int, default=8)
    _named(sub, "delete", "delete a knowledge base (threads keep their history)")
    rename = _named(sub, "rename", "rename a knowledge base")
    rename.add_argument("new_name", metavar="NEW")
    remove = _named(sub, "remove", "remove a document (by path, file name or id)")
    remove.add_argument("document", metavar="DOC")
    reindex = _named(sub, "reindex", "re-read changed files, drop deleted ones")
    reindex.add_argument("--full", action="store_true", help="re-read every file")
    embed = _named(sub, "embed", "use an embedding model and embed the passages")
    embed.add_argument("--provider", required=True)
    embed.add_argument("--model", required=True)
    rerank = _named(sub, "rerank", "use a rerank model (or --off)")
    rerank.add_argument("--provider")
    rerank.add_argument("--model")
    rerank.add_argument("--off", action="store_true")
    bind = _named(sub, "bind", "bind a thread to a knowledge base")
    bind.add_argument("--thread", required=True, metavar="ID")
    unbind = sub.add_parser("unbind", help="unbind a thread from its knowledge base")
    unbind.add_argument("--thread", required=True, metavar="ID")
    unbind.add_argument("--json", action="store_true")


def _named(sub: Any, action: str, help_text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(action, help=help_text)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("--json", action="store_true")
    return parser


async def run(services: Services, args: argparse.Namespace) -> int:
    handlers = {
        "create": _create,
        "add": _add,
        "list": _list,
        "search": _search,
        "delete": _delete,
        "rename": _rename,
        "remove": _remove,
        "reindex": _reindex,
        "embed": _embed,
        "rerank": _rerank,
        "bind": _bind,
        "unbind": _unbind,
    }
    return await handlers[args.kb_command](services, args)


def _done(args: argparse.Namespace, text: str, data: dict[str, Any]) -> int:
    if args.json:
        print_json(data)
    else:
        print(text)
    return 0


async def _create(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.create(args.name)
    return _done(args, f"Created knowledge base {kb.name}.", {"id": kb.id, "name": kb.name})


async def _delete(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    unbound = await services.knowledge.delete(kb.id)
    kept = f"; {unbound} thread(s) were unbound and keep their history" if unbound else ""
    text = f"Deleted knowledge base {kb.name}{kept}."
    return _done(args, text, {"id": kb.id, "name": kb.name, "threads_unbound": unbound})


async def _rename(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    kb = await services.knowledge.rename(kb.id, args.new_name)
    return _done(args, f"Renamed to {kb.name}.", {"id": kb.id, "name": kb.name})


async def _remove(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    doc = await services.knowledge.remove_document(kb.id, args.document)
    return _done(args, f"Removed {doc.path}.", {"id": doc.id, "path": doc.path})


async def _bind(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    await services.knowledge.bind(args.thread, kb.id)
    text = f"Thread {args.thread} now answers from {kb.name}."
    return _done(args, text, {"thread_id": args.thread, "kb_id": kb.id})


async def _unbind(services: Services, args: argparse.Namespace) -> int:
    await services.knowledge.unbind(args.thread)
    text = f"Thread {args.thread} has no knowledge base now."
    return _done(args, text, {"thread_id": args.thread, "kb_id": None})


# -- content


@contextlib.contextmanager
def _interruptible() -> Iterator[threading.Event]:
    """A cancel event set by Ctrl+C (so the summary still prints)."""
    cancel = threading.Event()
    loop = asyncio.get_running_loop()
    installed = add_handler(loop, signal.SIGINT, cancel.set)
    try:
        yield cancel
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)


def _progress(step: IngestProgress) -> None:
    if step.status == "reading":
        return
    total = f"[{step.done}/{step.total}] " if step.total else ""
    detail = f" ({step.message})" if step.message else ""
    sys.stderr.write(f"{total}{step.status}: {step.current}{detail}\n")
    sys.stderr.flush()


def _summary(report: IngestReport, kb_name: str) -> str:
    parts = [
        f"{report.added} added",
        f"{report.updated} updated",
        f"{report.unchanged} unchanged",
    ]
    if report.removed:
        parts.append(f"{report.removed} removed")
    if report.failed:
        parts.append(f"{len(report.failed)} failed")
    if report.missing:
        parts.append(f"{len(report.missing)} not found")
    lines = [
        f"{kb_name}: {', '.join(parts)}; {report.chunks_stored} passages stored"
        + (f", {report.chunks_shared} already present" if report.chunks_shared else "")
        + (" (cancelled)" if report.cancelled else "")
        + "."
    ]
    lines += [
        f"  failed: {failure.path}: {failure.error}"
        + (f" ({failure.cause.hint})" if failure.cause is not None and failure.cause.hint else "")
        for failure in report.failed
    ]
    audio = [path for path, why in report.skipped if why == AUDIO_SKIPPED]
    if audio:
        lines.append(
            f"  skipped {len(audio)} audio file(s) found in folders (name each file to have it "
            f"written down): {', '.join(Path(p).name for p in audio[:5])}"
            + (" …" if len(audio) > 5 else "")
        )
    lines += [f"  warning: {warning}" for warning in report.warnings]
    return "\n".join(lines)


def _report_out(args: argparse.Namespace, kb_name: str, report: IngestReport) -> int:
    _done(args, _summary(report, kb_name), {"kb": kb_name, **report.to_dict()})
    return 130 if report.cancelled else 0


async def _add(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    with _interruptible() as cancel:
        report = await services.knowledge.add(kb.id, args.paths, progress=_progress, cancel=cancel)
    if not args.json:  # failures were said as they came (_progress); the JSON has these
        for path in report.missing:
            sys.stderr.write(f"not found: {path}\n")
        sys.stderr.flush()
    code = _report_out(args, kb.name, report)
    if code == 0 and not (report.added or report.updated) and (report.failed or report.missing):
        return 1  # nothing of what was asked for is in the knowledge base
    return code


async def _reindex(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    with _interruptible() as cancel:
        report = await services.knowledge.reindex(
            kb.id, full=args.full, progress=_progress, cancel=cancel
        )
    return _report_out(args, kb.name, report)


async def _embed(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    kb = await services.knowledge.configure_embeddings(kb.id, args.provider, args.model)
    with _interruptible() as cancel:
        count = await services.knowledge.embed_pending(kb.id, progress=_progress, cancel=cancel)
    stats = await services.knowledge.stats(kb.id)
    text = (
        f"{kb.name}: embeddings by {args.provider}/{args.model}; {count} passages embedded,"
        f" {stats.embedded_chunks} of {stats.chunks} have vectors."
    )
    data = {"kb": kb.name, "embedded": count, "with_vectors": stats.embedded_chunks}
    return _done(args, text, {**data, "chunks": stats.chunks, "cancelled": cancel.is_set()})


async def _rerank(services: Services, args: argparse.Namespace) -> int:
    if not args.off and not (args.provider and args.model):
        raise ConfigError(
            "Give --provider and --model, or --off.",
            hint=f"e.g. mira-desktop kb rerank {args.name} --provider NAME --model MODEL",
        )
    kb = await services.knowledge.resolve(args.name)
    provider, model = (None, None) if args.off else (args.provider, args.model)
    kb = await services.knowledge.configure_rerank(kb.id, provider, model)
    text = f"{kb.name}: reranking {'off' if args.off else f'by {provider}/{model}'}."
    return _done(args, text, {"kb": kb.name, "rerank": kb.settings.get("rerank")})


# -- reading


def stats_json(stats: KnowledgeBaseStats) -> dict[str, Any]:
    return {
        "id": stats.kb.id,
        "name": stats.kb.name,
        "documents": stats.documents,
        "chunks": stats.chunks,
        "embedded_chunks": stats.embedded_chunks,
        "index_bytes": stats.index_bytes,
        "text_bytes": stats.text_bytes,
        "embedding_bytes": stats.embedding_bytes,
        "fts_bytes": stats.fts_bytes,
        "embedding": stats.kb.settings.get("embedding"),
        "rerank": stats.kb.settings.get("rerank"),
        "folders": stats.kb.settings.get("folders", []),
        "created_at": stats.kb.created_at,
        "updated_at": stats.kb.updated_at,
    }


async def _list(services: Services, args: argparse.Namespace) -> int:
    if args.name:
        return await _documents(services, args)
    bases = await services.knowledge.list_all()
    if args.json:
        print_json({"knowledge_bases": [stats_json(s) for s in bases]})
        return 0
    if not bases:
        print("No knowledge bases yet. Create one: mira-desktop kb create NAME")
        return 0
    rows = [
        [s.kb.name, str(s.documents), str(s.chunks), human_size(s.index_bytes), _model(s)]
        for s in bases
    ]
    print_table(["NAME", "DOCUMENTS", "CHUNKS", "INDEX SIZE", "EMBEDDINGS"], rows)
    return 0


def _model(stats: KnowledgeBaseStats) -> str:
    ref = stats.kb.embedding
    return f"{ref.provider}/{ref.model} ({stats.embedded_chunks})" if ref else "-"


async def _documents(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    docs = await services.knowledge.documents(kb.id)
    if args.json:
        items = [
            {"id": d.id, "path": d.path, "name": d.name, "size": d.size, "chunks": d.chunks,
             "status": d.status, "error": d.error, "sha256": d.sha256}
            for d in docs
        ]  # fmt: skip
        print_json({"kb": kb.name, "documents": items})
        return 0
    if not docs:
        print(f"{kb.name} has no documents yet. Add some: mira-desktop kb add {kb.name} PATH")
        return 0
    rows = [[d.path, str(d.chunks), human_size(d.size), d.status] for d in docs]
    print_table(["PATH", "CHUNKS", "SIZE", "STATUS"], rows)
    return 0


async def _search(services: Services, args: argparse.Namespace) -> int:
    kb = await services.knowledge.resolve(args.name)
    query = " ".join(args.query)
    result = await services.knowledge.search(kb.id, query, limit=args.limit)
    for warning in result.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if args.json:
        hits = [
            {"rank": n, "document": h.chunk.document_name, "path": h.chunk.path,
             "location": h.chunk.location, "location_label": location_label(h.chunk.location),
             "snippet": h.snippet, "highlights": [list(s) for s in h.highlights],
             "score": round(h.score, 6), "ranks": h.ranks, "chunk_id": h.chunk.chunk_id}
            for n, h in enumerate(result.hits, 1)
        ]  # fmt: skip
        print_json({"kb": kb.name, "query": query, "methods": list(result.methods), "hits": hits})
        return 0
    if not result.hits:
        print(f"No passages of {kb.name} match “{query}”.")
        return 0
    for n, hit in enumerate(result.hits, 1):
        place = location_label(hit.chunk.location)
        where = f"{hit.chunk.document_name}" + (f", {place}" if place else "")
        print(f"{n}. {where}  (score {hit.score:.4f})")
        print(f"    {render_marked(hit.snippet, hit.highlights)}")
    return 0
