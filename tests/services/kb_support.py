"""Helpers of the knowledge-base service tests: a service with a counting
reader (the seam that shows which files were read), a folder of real documents
in every supported format, and raw-SQL peeks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.services.kb import KnowledgeBaseService
from mira_desktop.services.kb.ingest import default_reader
from mira_desktop.services.readers import Document
from mira_desktop.services.readers.limits import CancelCheck
from mira_desktop.storage.kb_store import KnowledgeStore
from tests.support.documents import make_docx, make_pdf, make_pptx, make_xlsx


class CountingReader:
    """The default reader, recording each path it read, the names of the
    files whose reading ended (``ended``, however) and of those it ran to
    its end (``finished``); ``hook(path)`` runs before each read (to cancel
    mid-way)."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.ended: list[str] = []
        self.finished: list[str] = []
        self.hook: Any = None

    def __call__(self, path: Path, cancel: CancelCheck | None = None) -> Document:
        if self.hook is not None:
            self.hook(path)
        self.paths.append(path)
        try:
            document = default_reader(path, cancel)
        finally:
            self.ended.append(path.name)
        self.finished.append(path.name)
        return document

    def names(self) -> list[str]:
        return [p.name for p in self.paths]


def kb_service(services: Services, reader: CountingReader) -> KnowledgeBaseService:
    return KnowledgeBaseService(
        KnowledgeStore(services.store.worker), services.providers, reader=reader
    )


def make_formats(folder: Path) -> Path:
    """One file per format, each with a findable fact at a known place."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.pdf").write_bytes(
        make_pdf(
            [
                ["Quarterly report", "Revenue reached 4 million dollars."],
                ["第二页讨论机器学习的进展。"],
            ]
        )
    )
    make_docx(folder / "plan.docx")
    make_pptx(folder / "deck.pptx")
    make_xlsx(folder / "sales.xlsx")
    (folder / "guide.md").write_text(
        "# Setup\n\nInstall the wheel first.\n\n## Troubleshooting\n\nRestart the zephyr daemon.\n",
        encoding="utf-8",
    )
    (folder / "notes.txt").write_text(
        "今天我们学习了向量数据库。\n明天讨论桌面助手。\n", encoding="utf-8"
    )
    return folder


async def rows(services: Services, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return await services.store.worker.run(lambda db: db.execute(sql, params).fetchall())


async def farm_kb(services: Services, tmp_path: Path) -> str:
    """A knowledge base with a PDF (facts on pages 1 and 2) and a markdown file."""
    folder = tmp_path / "farm"
    folder.mkdir()
    (folder / "orchard.pdf").write_bytes(
        make_pdf([["The farm has a barn."], ["The orchard grows 40 apple trees."]])
    )
    (folder / "pears.md").write_text("# Pears\n\nThere are 12 pear trees by the river.\n")
    kb = await services.knowledge.create("Farm")
    report = await services.knowledge.add(kb.id, [folder])
    assert report.added == 2
    return kb.id
