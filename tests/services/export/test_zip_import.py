"""Importing a Mira ZIP export into another library brings its attachments'
files along (PRODUCT.md §7, §9): the files the ZIP carries go back into the
media store, counted as referenced; a file whose bytes are not the
attachment's (damaged, altered) is left out and the attachment stays a note;
a single JSON file carries no bytes and says so. Real libraries in temp
folders, real ZIP files."""

from __future__ import annotations

import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services

from .sample import Sample, build_sample

NOTES = b"notes about lists\n"


@pytest.fixture
async def other(tmp_path: Path) -> AsyncIterator[Services]:
    """A second, empty library (another machine)."""
    services = build_services(tmp_path / "other-library")
    yield services
    await services.aclose()


async def exported_zip(services: Services, tmp_path: Path) -> tuple[Sample, Path]:
    sample = await build_sample(services)
    target = tmp_path / "backup.zip"
    result = await services.exports.export_zip([sample.thread_id], target, inner="json")
    assert result.path == target
    return sample, target


async def first_attachment(services: Services, thread_id: str) -> dict[str, object]:
    document = await services.exports.thread_document(thread_id)
    attachment: dict[str, object] = document["messages"][0]["attachments"][0]
    return attachment


async def test_a_zip_brings_its_attachments_files_into_another_library(
    services: Services, other: Services, tmp_path: Path
) -> None:
    sample, target = await exported_zip(services, tmp_path)
    report = await other.imports.import_file(target)

    assert (report.files_restored, report.files_missing) == (1, 0)
    assert report.to_dict()["files_restored"] == 1
    (imported,) = report.imported
    assert (await first_attachment(other, imported.id))["available"] is True
    assert other.media.path(sample.attachment_sha).read_bytes() == NOTES
    assert await other.media.ref_count(sample.attachment_sha) == 1
    # referenced: the collector keeps it, and the message reads it back
    assert await other.media.collect_garbage() == []
    attachments = await other.media.attachments([sample.u1])
    assert [a.name for a in attachments[sample.u1]] == ["notes.txt"]

    # the same ZIP again: the file is there already, one more reference
    again = await other.imports.import_file(target)
    assert (again.files_restored, again.files_missing) == (0, 0)
    assert await other.media.ref_count(sample.attachment_sha) == 2


async def test_an_altered_file_in_the_zip_is_left_out_and_the_attachment_stays_a_note(
    services: Services, other: Services, tmp_path: Path
) -> None:
    sample, target = await exported_zip(services, tmp_path)
    altered = tmp_path / "altered.zip"
    with zipfile.ZipFile(target) as source, zipfile.ZipFile(altered, "w") as copy:
        for info in source.infolist():
            data = source.read(info)
            copy.writestr(
                info, b"not the notes\n" if info.filename.startswith("attachments/") else data
            )

    report = await other.imports.import_file(altered)
    assert (report.files_restored, report.files_missing) == (0, 1)
    (imported,) = report.imported
    assert (await first_attachment(other, imported.id))["available"] is False
    assert await other.media.ref_count(sample.attachment_sha) is None
    assert not other.media.path(sample.attachment_sha).exists()


async def test_a_single_json_file_says_its_attachments_files_stayed_behind(
    services: Services, other: Services, tmp_path: Path
) -> None:
    sample = await build_sample(services)
    path = tmp_path / "one.json"
    await services.exports.export_thread(sample.thread_id, "json", path)

    report = await other.imports.import_file(path)
    assert (report.files_restored, report.files_missing) == (0, 1)
    # in the library that has the file, nothing is missing
    home = await services.imports.import_file(path)
    assert (home.files_restored, home.files_missing) == (0, 0)
