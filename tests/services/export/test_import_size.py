"""An import file is parsed in memory, so one too large to hold — a multi-GB
``conversations.json``, a ZIP bomb — is refused before it is read, saying its
size and the limit (PRODUCT.md §9). The limit is the service's parameter:
these tests pass a small one. Real files and real ZIPs in temp folders."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import InvalidImportError
from mira_desktop.services.importers import ImportService
from mira_desktop.services.importers.service import MAX_IMPORT_BYTES

from .chatgpt_fixture import branching
from .sample import build_sample
from .test_json_export import thread_count

LIMIT = 4096


@pytest.fixture
def small(services: Services) -> ImportService:
    """The import service of ``services`` reading at most ``LIMIT`` bytes."""
    return ImportService(services.export_store, media=services.media, max_bytes=LIMIT)


def test_the_default_limit_is_generous() -> None:
    assert MAX_IMPORT_BYTES == 1024**3


async def test_a_file_over_the_limit_is_refused_unread(
    services: Services, small: ImportService, tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([branching().data]) + " " * LIMIT, "utf-8")
    before = await thread_count(services)
    with pytest.raises(InvalidImportError) as caught:
        await small.import_file(path)
    size = path.stat().st_size // 1024
    assert caught.value.message == (
        f"conversations.json is {size} KB; an import file can be at most 4 KB."
    )
    assert "Nothing was imported" in caught.value.hint
    assert await thread_count(services) == before


async def test_a_zip_entry_over_the_limit_unpacked_is_refused(
    services: Services, small: ImportService, tmp_path: Path
) -> None:
    path = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        # a few hundred bytes packed, 64 KB unpacked
        archive.writestr("conversations.json", "[" + " " * 65536 + "]")
    assert path.stat().st_size < LIMIT
    with pytest.raises(InvalidImportError, match=r"conversations\.json is 64 KB; .* at most 4 KB"):
        await small.import_file(path)


async def test_documents_of_a_zip_together_over_the_limit_are_refused(
    services: Services, small: ImportService, tmp_path: Path
) -> None:
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for n in range(8):
            archive.writestr(f"thread-{n}.json", "{" + " " * 1000 + "}")
    with pytest.raises(InvalidImportError) as caught:
        await small.import_file(path)
    assert caught.value.message == (
        "The files to import in many.zip come to 8 KB unpacked; at most 4 KB can be read."
    )


async def test_files_under_the_limit_are_imported(services: Services, tmp_path: Path) -> None:
    sample = await build_sample(services)
    target = tmp_path / "backup.zip"
    await services.exports.export_zip([sample.thread_id], target, inner="json")
    with zipfile.ZipFile(target) as archive:
        biggest = max(i.file_size for i in archive.infolist())
    fits = ImportService(services.export_store, media=services.media, max_bytes=biggest)
    report = await fits.import_file(target)
    assert [t.title for t in report.imported] == ["列表推导式 & <tables>"]
