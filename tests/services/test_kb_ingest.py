"""Knowledge-base management and ingestion on a real data folder: every format
with its locations, folder walking, deduplication, incremental re-index,
cancellation, and deletion that keeps threads and messages."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError, NotFoundError
from mira_desktop.core.knowledge import IngestProgress, IngestStatus
from tests.services.kb_support import CountingReader, kb_service, make_formats, rows
from tests.services.seed import make_thread


async def _top(service, kb_id: str, query: str) -> tuple[str, dict]:
    result = await service.search(kb_id, query, limit=3)
    assert result.hits, query
    hit = result.hits[0]
    return hit.chunk.document_name, hit.chunk.location


async def test_every_format_is_indexed_with_its_locations(
    services: Services, tmp_path: Path
) -> None:
    service = kb_service(services, CountingReader())
    kb = await service.create("Formats")
    steps: list[IngestProgress] = []
    report = await service.add(kb.id, [make_formats(tmp_path / "docs")], progress=steps.append)
    assert report.added == 6 and not report.failed and not report.cancelled
    assert [s.done for s in steps if s.status != IngestStatus.READING] == [1, 2, 3, 4, 5, 6]
    assert {s.total for s in steps} == {6}
    assert await _top(service, kb.id, "revenue million") == ("report.pdf", {"page": 1})
    assert await _top(service, kb.id, "机器学习") == ("report.pdf", {"page": 2})
    assert await _top(service, kb.id, "人工智能") == (
        "plan.docx",
        {"heading": "项目概述", "paragraph": 2},
    )
    assert (await _top(service, kb.id, "GPU price"))[1]["heading"] == "Budget"
    assert await _top(service, kb.id, "新客户") == ("deck.pptx", {"slide": 1, "notes": True})
    assert await _top(service, kb.id, "engineers") == ("deck.pptx", {"slide": 2, "notes": False})
    assert await _top(service, kb.id, "北京") == ("sales.xlsx", {"sheet": "销售"})
    assert await _top(service, kb.id, "Li Wei") == ("sales.xlsx", {"sheet": "Notes"})
    assert await _top(service, kb.id, "zephyr") == (
        "guide.md",
        {"line": 5, "heading": "Troubleshooting"},
    )
    assert await _top(service, kb.id, "向量数据库") == ("notes.txt", {"line": 1})
    [stats] = await service.list_all()
    assert (stats.documents, stats.chunks) == (6, report.chunks_stored)
    assert stats.text_bytes > 300 and stats.fts_bytes > 0 and stats.embedding_bytes == 0
    assert stats.index_bytes == stats.text_bytes + stats.fts_bytes


async def test_folders_skip_hidden_and_unsupported_files(
    services: Services, tmp_path: Path
) -> None:
    folder = tmp_path / "tree"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config.md").write_text("hidden folder")
    (folder / ".secret.md").write_text("hidden file")
    (folder / "deep" / "deeper").mkdir(parents=True)
    (folder / "deep" / "deeper" / "found.md").write_text("deep content here")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n")
    (folder / "archive.zip").write_bytes(b"PK\x03\x04")
    reader = CountingReader()
    service = kb_service(services, reader)
    kb = await service.create("Tree")
    report = await service.add(kb.id, [folder, tmp_path / "missing.md"])
    assert reader.names() == ["found.md"]
    assert report.added == 1
    skipped = {Path(p).name: reason for p, reason in report.skipped}
    assert skipped == {
        "photo.png": "unsupported type",
        "archive.zip": "unsupported type",
        "missing.md": "not found",
    }
    assert (await service.get(kb.id)).settings["folders"] == [str(folder.resolve())]


async def test_unreadable_files_are_reported_not_stored(services: Services, tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really")
    service = kb_service(services, CountingReader())
    kb = await service.create("Bad")
    report = await service.add(kb.id, [tmp_path / "empty.md", tmp_path / "broken.pdf"])
    assert report.added == 0 and len(report.failed) == 2
    assert "empty" in report.failed[0][1]
    assert (await service.stats(kb.id)).documents == 0


async def test_duplicates_are_stored_once_and_survive_removal(
    services: Services, tmp_path: Path
) -> None:
    shared = "# Mirror\n\nThe shared paragraph about the Orion telescope mirror.\n\n"
    (tmp_path / "a.md").write_text(shared + "# Cap\n\nOnly in a: the lens cap.\n")
    (tmp_path / "b.md").write_text(shared + "# Tripod\n\nOnly in b: the tripod.\n")
    service = kb_service(services, CountingReader())
    kb = await service.create("Dupes")
    first = await service.add(kb.id, [tmp_path / "a.md", tmp_path / "a.md"])
    assert first.added == 1  # the same file twice is one document
    again = await service.add(kb.id, [tmp_path / "a.md"])
    assert again.unchanged == 1 and again.added == 0
    second = await service.add(kb.id, [tmp_path / "b.md"])
    assert (second.chunks_stored, second.chunks_shared) == (1, 1)
    count = (await service.stats(kb.id)).chunks
    assert count == first.chunks_stored + second.chunks_stored
    texts = [
        r[0] for r in await rows(services, "SELECT text FROM kb_chunks WHERE kb_id = ?", kb.id)
    ]
    assert len(texts) == len(set(texts))
    await service.remove_document(kb.id, "a.md")
    result = await service.search(kb.id, "Orion telescope")
    assert result.hits and result.hits[0].chunk.document_name == "b.md"
    [doc] = await service.documents(kb.id)
    assert doc.name == "b.md" and doc.chunks == second.chunks_stored + second.chunks_shared


async def test_reindex_reads_only_changed_files(services: Services, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("one", "two", "three"):
        (folder / f"{name}.md").write_text(f"Note {name}: the falcon count is {len(name)}.")
    reader = CountingReader()
    service = kb_service(services, reader)
    kb = await service.create("Notes")
    await service.add(kb.id, [folder])
    reader.paths.clear()
    report = await service.reindex(kb.id)
    assert reader.paths == [] and report.unchanged == 3
    two = folder / "two.md"
    stat = two.stat()
    os.utime(two, (stat.st_atime, stat.st_mtime + 5))  # touched, same content
    report = await service.reindex(kb.id)
    assert reader.names() == ["two.md"] and report.unchanged == 3 and report.updated == 0
    reader.paths.clear()
    (folder / "one.md").write_text("Note one: the heron count is eleven.")
    (folder / "three.md").unlink()
    (folder / "four.md").write_text("Note four: the osprey count is four.")
    report = await service.reindex(kb.id)
    assert sorted(reader.names()) == ["four.md", "one.md"]
    assert (report.updated, report.added, report.removed, report.unchanged) == (1, 1, 1, 1)
    assert await service.search(kb.id, "falcon") is not None
    names = {h.chunk.document_name for h in (await service.search(kb.id, "falcon")).hits}
    assert names == {"two.md"}
    assert (await service.search(kb.id, "heron")).hits[0].chunk.document_name == "one.md"


async def test_a_document_removed_by_hand_stays_out_of_reindexing(
    services: Services, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.txt").write_text(f"Note {name} about kestrels.")
    service = kb_service(services, CountingReader())
    kb = await service.create("Notes")
    await service.add(kb.id, [folder])
    await service.remove_document(kb.id, "a.txt")
    report = await service.reindex(kb.id)
    assert report.added == 0
    assert [d.name for d in await service.documents(kb.id)] == ["b.txt"]
    (folder / "c.txt").write_text("Note c, new in the folder.")  # new files still come in
    await service.reindex(kb.id)
    assert sorted(d.name for d in await service.documents(kb.id)) == ["b.txt", "c.txt"]
    await service.add(kb.id, [folder / "a.txt"])  # named again: back, and kept
    await service.reindex(kb.id)
    assert sorted(d.name for d in await service.documents(kb.id)) == ["a.txt", "b.txt", "c.txt"]
    await service.remove_document(kb.id, "b.txt")
    await service.add(kb.id, [folder])  # the folder named again brings it back
    assert sorted(d.name for d in await service.documents(kb.id)) == ["a.txt", "b.txt", "c.txt"]


def small_documents(folder: Path, count: int, animal: str) -> list[Path]:
    """``doc0.md`` … : one sentence each, about ``animal`` number n."""
    paths = []
    for n in range(count):
        path = folder / f"doc{n}.md"
        path.write_text(f"Document {n} mentions the {animal} number {n}.")
        paths.append(path)
    return paths


async def test_cancel_mid_ingest_keeps_finished_documents(
    services: Services, tmp_path: Path
) -> None:
    paths = small_documents(tmp_path, 4, "walrus")
    cancel = threading.Event()
    reader = CountingReader()
    reader.hook = lambda path: cancel.set() if path.name == "doc1.md" else None
    service = kb_service(services, reader)
    kb = await service.create("Cancel")
    report = await service.add(kb.id, paths, cancel=cancel)
    assert report.cancelled and report.added == 1
    docs = await service.documents(kb.id)
    assert [d.name for d in docs] == ["doc0.md"]
    orphans = await rows(
        services,
        "SELECT COUNT(*) FROM kb_chunks c LEFT JOIN kb_documents d ON d.id = c.document_id"
        " WHERE d.id IS NULL OR c.text LIKE '%number 1.%'",
    )
    assert orphans == [(0,)]
    report = await service.add(kb.id, paths)  # resumes: the finished one is unchanged
    assert (report.added, report.unchanged, report.cancelled) == (3, 1, False)


async def test_deleting_a_knowledge_base_keeps_threads_and_messages(
    services: Services, tmp_path: Path
) -> None:
    (tmp_path / "kb.md").write_text("The gazebo is painted teal.")
    service = kb_service(services, CountingReader())
    kb = await service.create("Garden")
    await service.add(kb.id, [tmp_path / "kb.md"])
    thread = await make_thread(services, "Garden talk", ["What colour?", "Teal [1]."])
    await service.bind(thread.id, kb.id)
    assert (await services.store.get_thread(thread.id)).kb_id == kb.id
    assert await service.delete(kb.id) == 1
    kept = await services.store.get_thread(thread.id)
    assert kept.kb_id is None and kept.title == "Garden talk"
    assert [m.text for m in await services.store.active_branch(thread.id)] == [
        "What colour?",
        "Teal [1].",
    ]
    assert await rows(services, "SELECT COUNT(*) FROM kb_chunks") == [(0,)]
    assert await rows(
        services, "SELECT COUNT(*) FROM kb_chunks_fts WHERE kb_chunks_fts MATCH 'gazebo'"
    ) == [(0,)]
    with pytest.raises(NotFoundError):
        await service.get(kb.id)


async def test_names_bind_and_unbind(services: Services) -> None:
    service = kb_service(services, CountingReader())
    kb = await service.create("  Research   notes ")
    assert kb.name == "Research notes"
    with pytest.raises(ConfigError):
        await service.create("research NOTES")
    with pytest.raises(ConfigError):
        await service.create("   ")
    renamed = await service.rename(kb.id, "Papers")
    assert (await service.resolve("papers")).id == renamed.id
    thread = await make_thread(services, "t")
    await service.bind(thread.id, kb.id)
    await service.unbind(thread.id)
    assert (await services.store.get_thread(thread.id)).kb_id is None
    with pytest.raises(NotFoundError):
        await service.bind("no-such-thread", kb.id)


async def test_a_long_document_with_repeated_passages_is_stored_once_each(
    services: Services, tmp_path: Path
) -> None:
    """Hundreds of passages go in a few multi-row inserts; a passage repeated
    inside the document is stored once and referred to where it repeats."""
    from mira_desktop.services.kb.chunking import chunk_document
    from mira_desktop.services.kb.ingest import default_reader

    repeated = "## Boilerplate\n\n" + "This notice repeats in every chapter of the manual. " * 8
    chapters = [
        f"## Chapter {n}\n\n" + f"Chapter {n} explains the gearbox part number {n * 37}. " * 12
        for n in range(240)
    ]
    body = "\n\n".join(c + "\n\n" + repeated if n % 60 == 0 else c for n, c in enumerate(chapters))
    path = tmp_path / "manual.md"
    path.write_text(body)
    chunks = chunk_document(default_reader(path))
    unique = len({c.sha256 for c in chunks})
    assert len(chunks) > 200 and unique < len(chunks)  # several inserts, some repeats
    service = kb_service(services, CountingReader())
    kb = await service.create("Manual")
    report = await service.add(kb.id, [path])
    assert (report.chunks_stored, report.chunks_shared) == (unique, len(chunks) - unique)
    stored = await rows(services, "SELECT COUNT(*) FROM kb_chunks WHERE kb_id = ?", kb.id)
    refs = await rows(services, "SELECT COUNT(*) FROM kb_chunk_refs")
    assert (stored, refs) == ([(unique,)], [(len(chunks) - unique,)])
    result = await service.search(kb.id, "gearbox part number 8843")
    assert result.hits and "8843" in result.hits[0].chunk.text
    assert (await service.search(kb.id, "notice repeats")).hits
    [doc] = await service.documents(kb.id)
    assert doc.chunks == len(chunks)


async def test_the_next_file_is_read_while_a_document_is_written(
    services: Services, tmp_path: Path
) -> None:
    """Each write waits (up to 5 s) until the next file's read has begun: it
    can only go on because reading runs beside writing."""
    import asyncio

    from mira_desktop.services.kb import KnowledgeBaseService
    from mira_desktop.storage.kb_store import KnowledgeStore

    paths = small_documents(tmp_path, 3, "narwhal")
    loop = asyncio.get_running_loop()
    began = {path.name: asyncio.Event() for path in paths}
    reader = CountingReader()
    reader.hook = lambda path: loop.call_soon_threadsafe(began[path.name].set)

    class WaitingStore(KnowledgeStore):
        async def write_document(self, kb_id, doc, chunks):  # type: ignore[no-untyped-def]
            following = [p.name for p in paths[paths.index(Path(doc.path)) + 1 :]]
            if following:
                await asyncio.wait_for(began[following[0]].wait(), 5)
            return await super().write_document(kb_id, doc, chunks)

    service = KnowledgeBaseService(
        WaitingStore(services.store.worker), services.providers, reader=reader
    )
    kb = await service.create("Overlap")
    report = await service.add(kb.id, paths)
    assert report.added == 3 and not report.failed
    assert reader.names() == ["doc0.md", "doc1.md", "doc2.md"]
