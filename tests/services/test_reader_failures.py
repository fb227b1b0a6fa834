"""A file that trips a document library in a way its reader did not foresee
is refused like any other bad file — named, with the library's complaint —
and, in a knowledge base, fails alone: the other files are still indexed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ReaderError
from mira_desktop.services.readers import DocumentRefusedError, read_document
from tests.services.kb_support import CountingReader, kb_service
from tests.support.documents import make_docx_merged_from_the_top


def test_a_docx_whose_table_python_docx_cannot_lay_out_is_refused_with_its_name(
    tmp_path: Path,
) -> None:
    path = make_docx_merged_from_the_top(tmp_path / "merged.docx")
    with pytest.raises(DocumentRefusedError) as caught:
        read_document(path)
    error = caught.value
    assert error.reason == "unreadable" and error.hint
    assert str(error).startswith('"merged.docx" cannot be read:')
    assert "Word document" in str(error) and "no tr above topmost tr" in str(error)


async def test_a_folder_with_such_a_docx_indexes_the_other_files(
    services: Services, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_docx_merged_from_the_top(folder / "a.docx")
    (folder / "b.txt").write_text("The lighthouse keeper feeds seven gulls.\n")
    kb = await services.knowledge.create("Mixed")
    report = await services.knowledge.add(kb.id, [folder])
    assert report.added == 1 and not report.cancelled
    [failure] = report.failed
    assert Path(failure.path).name == "a.docx"
    assert isinstance(failure.cause, ReaderError) and "no tr above" in failure.error
    result = await services.knowledge.search(kb.id, "lighthouse gulls")
    assert [h.chunk.document_name for h in result.hits] == ["b.txt"]


async def test_a_reader_that_breaks_on_one_file_fails_that_file_only(
    services: Services, tmp_path: Path
) -> None:
    """Whatever the reader raises — not only a refusal — is that file's failure."""
    for name, text in (("a.md", "apples are red"), ("b.md", "bananas are yellow")):
        (tmp_path / name).write_text(text + "\n")

    def hook(path: Path) -> None:
        if path.name == "a.md":
            raise RuntimeError("the reader tripped")

    reader = CountingReader()
    reader.hook = hook
    service = kb_service(services, reader)
    kb = await service.create("Fruit")
    report = await service.add(kb.id, [tmp_path / "a.md", tmp_path / "b.md"])
    assert report.added == 1 and not report.cancelled
    [failure] = report.failed
    assert Path(failure.path).name == "a.md"
    assert failure.error == 'Cannot read "a.md": the reader tripped.'
    assert [d.name for d in await service.documents(kb.id)] == ["b.md"]
