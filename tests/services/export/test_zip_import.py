"""Importing a Mira ZIP export into another library brings its attachments'
files along (PRODUCT.md §7, §9): the files the ZIP carries go back into the
media store, counted as referenced; a file whose bytes are not the
attachment's (damaged, altered) is left out and the attachment stays a note;
a single JSON file carries no bytes and says so. Real libraries in temp
folders, real ZIP files."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.attachments import Attachment
from mira_desktop.core.transfer import AttachmentRecord
from mira_desktop.services.importers.zip_files import ArchiveFiles

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


async def test_a_damaged_entry_is_left_out_and_the_threads_are_imported(
    services: Services, other: Services, tmp_path: Path
) -> None:
    sample, target = await exported_zip(services, tmp_path)
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(target) as source, zipfile.ZipFile(damaged, "w") as copy:
        for info in source.infolist():
            copy.writestr(info.filename, source.read(info), compress_type=zipfile.ZIP_DEFLATED)
    with zipfile.ZipFile(damaged) as archive:
        entry = next(i for i in archive.infolist() if i.filename.startswith("attachments/"))
    raw = bytearray(damaged.read_bytes())
    header = entry.header_offset
    name_length = int.from_bytes(raw[header + 26 : header + 28], "little")
    extra_length = int.from_bytes(raw[header + 28 : header + 30], "little")
    raw[header + 30 + name_length + extra_length] = 0xFF  # an invalid deflate block
    damaged.write_bytes(bytes(raw))

    report = await other.imports.import_file(damaged)
    assert (report.files_restored, report.files_missing) == (0, 1)
    assert [t.title for t in report.imported] == ["列表推导式 & <tables>"]
    assert await other.media.ref_count(sample.attachment_sha) is None


def test_an_entry_is_found_by_its_content_whatever_name_it_was_written_under(
    tmp_path: Path,
) -> None:
    data = b"the same bytes\n"
    sha = hashlib.sha256(data).hexdigest()
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"attachments/{sha[:12]}-IMG_1.txt", data)
        archive.writestr(f"attachments/{sha[:12]}-other.txt", b"not it\n")  # same prefix
    files = ArchiveFiles(path)
    try:
        record = AttachmentRecord(name="photo.txt", mime="text/plain", sha256=sha, size=len(data))
        assert files.read(record) == data
        unknown = AttachmentRecord(name="x.txt", mime="text/plain", sha256="0" * 64, size=1)
        assert files.read(unknown) is None
    finally:
        files.close()


async def test_json_files_attached_to_a_thread_are_files_not_threads(
    services: Services, other: Services, tmp_path: Path
) -> None:
    """A batch ZIP keeps attachments under ``attachments/``: a ``.json`` file
    attached (even a Mira export of a thread) stays a file of its message."""
    sample = await build_sample(services)
    backup = json.dumps(await services.exports.thread_document(sample.thread_id)).encode()
    for name, data in (("data.json", b'{"a": 1}\n'), ("backup.json", backup)):
        sha = await services.media.put(data, "application/json")
        attachment = Attachment(sha, name, "application/json", "file", len(data))
        await services.media.attach(sample.a1, [(None, attachment)])
    target = tmp_path / "backup.zip"
    await services.exports.export_zip([sample.thread_id], target, inner="json")
    with zipfile.ZipFile(target) as archive:
        assert sum(n.endswith(".json") for n in archive.namelist()) == 3

    report = await other.imports.import_file(target)
    assert [t.title for t in report.imported] == ["列表推导式 & <tables>"]
    assert (report.files_restored, report.files_missing) == (3, 0)
    (imported,) = report.imported
    document = await other.exports.thread_document(imported.id)
    answer = next(m for m in document["messages"] if m["id"] == sample.a1)
    assert [a["name"] for a in answer["attachments"]] == ["data.json", "backup.json"]
