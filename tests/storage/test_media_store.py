"""The media store on a real data folder: content-addressed files written
atomically, deduplicated, reference-counted in the same transaction as the rows
that hold the references, and collected (with a grace period for files being
added right now) when nothing refers to them."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from mira_desktop.core.attachments import Attachment
from mira_desktop.core.errors import NotFoundError, StorageError
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.storage import attachments_repo, media_repo
from mira_desktop.storage.connection import Database
from mira_desktop.storage.database import open_database, write
from mira_desktop.storage.media_files import TMP_PREFIX, MediaFiles, _os_error
from mira_desktop.storage.media_store import MediaStore
from mira_desktop.storage.worker import DatabaseWorker

REPO = Path(__file__).resolve().parents[2]
HOUR = 3600.0


class Clock:
    """Epoch seconds that tests move by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def worker(data_dir: Path) -> Iterator[DatabaseWorker]:
    built = DatabaseWorker(data_dir)
    yield built
    built.close()


@pytest.fixture
async def media(worker: DatabaseWorker, data_dir: Path, clock: Clock) -> AsyncIterator[MediaStore]:
    yield MediaStore(worker, data_dir / "media", clock=clock, grace_seconds=HOUR)


def media_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def row(worker: DatabaseWorker, sha: str) -> dict | None:
    def fetch(db: Database) -> dict | None:
        return next(db.query("SELECT * FROM media WHERE sha256 = ?", [sha]), None)

    return worker.run_sync(fetch)


def message_in_db(worker: DatabaseWorker) -> str:
    """A thread with one message, written directly (the tree's own API is not ours)."""

    def make(db: Database) -> str:
        now = utc_now()
        workspace = db.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0]
        thread_id, message_id = new_id(), new_id()
        with write(db) as conn:
            conn.execute(
                "INSERT INTO threads(id, title, workspace_id, created_at, updated_at)"
                " VALUES (?, 'T', ?, ?, ?)",
                (thread_id, workspace, now, now),
            )
            conn.execute(
                "INSERT INTO messages(id, thread_id, role, text, created_at, updated_at)"
                " VALUES (?, ?, 'user', 'hi', ?, ?)",
                (message_id, thread_id, now, now),
            )
        return message_id

    return worker.run_sync(make)


# files ---------------------------------------------------------------------


def test_files_are_content_addressed_and_deduplicated(tmp_path: Path) -> None:
    files = MediaFiles(tmp_path / "media")
    data = "图片内容".encode() * 1000
    sha = hashlib.sha256(data).hexdigest()
    first = files.commit(files.stage(data))
    assert first == tmp_path / "media" / sha[:2] / sha
    assert first.read_bytes() == data
    mtime = first.stat().st_mtime_ns
    again = files.commit(files.stage(data))  # same content: same file, kept as is
    assert again == first and first.stat().st_mtime_ns == mtime
    assert media_files(tmp_path / "media") == [first]  # no temporary file left


def test_staging_from_a_path_streams_and_checks_the_hash(tmp_path: Path) -> None:
    source = tmp_path / "big.bin"
    source.write_bytes(os.urandom(3 * 1024 * 1024 + 17))
    files = MediaFiles(tmp_path / "media")
    staged = files.stage(source)
    assert staged.tmp_path.parent == files.path(staged.sha256).parent  # same folder: atomic
    assert staged.tmp_path.name.startswith(TMP_PREFIX)
    assert files.commit(staged).read_bytes() == source.read_bytes()


def test_a_folder_that_cannot_be_written_gives_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "media"
    root.write_text("a file where the media folder should be")
    with pytest.raises(StorageError) as info:
        MediaFiles(root).stage(b"data")
    assert "media folder" in str(info.value) and info.value.hint


def test_a_full_disk_leaves_no_partial_file(tmp_path: Path) -> None:
    """A real write failure: the process may not grow a file beyond 64 KB
    (RLIMIT_FSIZE gives EFBIG, the same path as ENOSPC)."""
    root = tmp_path / "media"
    script = textwrap.dedent(
        f"""
        import json, resource, signal
        from pathlib import Path
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
        from mira_desktop.core.errors import StorageError
        from mira_desktop.storage.media_files import MediaFiles
        try:
            MediaFiles(Path({str(root)!r})).stage(b"x" * (1024 * 1024))
        except StorageError as exc:
            print(json.dumps({{"message": exc.message, "hint": exc.hint}}))
        """
    )
    pytest.importorskip("resource", reason="needs POSIX resource limits")
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert out.returncode == 0, out.stderr
    error = json.loads(out.stdout)
    assert "Nothing was saved" in error["message"] and error["hint"]
    assert media_files(root) == []  # the temporary file is gone too


def test_os_errors_become_messages_a_person_understands() -> None:
    full = _os_error(OSError(errno.ENOSPC, "No space left on device"), "store 2 MB")
    assert str(full) == "The disk is full: could not store 2 MB. Nothing was saved."
    assert "Free some disk space" in full.hint
    denied = _os_error(OSError(errno.EACCES, "Permission denied"), "store 2 MB")
    assert "not allowed to write" in str(denied) and "permissions" in denied.hint


# rows and reference counts -----------------------------------------------------


async def test_put_twice_keeps_one_row_and_one_file(
    media: MediaStore, worker: DatabaseWorker
) -> None:
    sha = await media.put(b"same bytes", "text/plain", refs=1)
    assert await media.put(b"same bytes", "text/plain", refs=1) == sha
    assert await media.ref_count(sha) == 2
    stored = row(worker, sha)
    assert stored is not None and (stored["mime"], stored["size"]) == ("text/plain", 10)
    assert media_files(media.files.root) == [media.path(sha)]
    assert await media.read(sha) == b"same bytes"


async def test_reference_counts_never_go_below_zero(media: MediaStore) -> None:
    sha = await media.put(b"abc", "text/plain", refs=1)
    assert await media.add_ref(sha) == 2
    assert await media.release(sha) == 1
    assert await media.release(sha, 5) == 0
    assert await media.release(sha) == 0
    with pytest.raises(NotFoundError):
        await media.add_ref("0" * 64)


def test_reference_changes_roll_back_with_their_transaction(data_dir: Path) -> None:
    db = open_database(data_dir)
    files = MediaFiles(data_dir / "media")
    staged = files.stage(b"payload")
    media_repo.store_staged(db, files, staged, "text/plain", refs=1)
    with pytest.raises(RuntimeError), write(db) as conn:
        media_repo.add_ref(conn, staged.sha256, 3)
        raise RuntimeError("the other rows of this transaction failed")
    assert media_repo.ref_count(db, staged.sha256) == 1


async def test_pending_reference_then_claim_by_a_message_part(
    media: MediaStore, worker: DatabaseWorker
) -> None:
    sha, pending_id = await media.put_pending(b"chip", "text/plain")
    assert await media.ref_count(sha) == 1
    message_id = message_in_db(worker)
    attachment = Attachment(sha, "a.txt", "text/plain", "file", 4, {"kind": "text"})
    [saved] = await media.attach(message_id, [(pending_id, attachment)])
    assert (saved.message_id, saved.ordinal) == (message_id, 0) and saved.id
    assert await media.ref_count(sha) == 1  # the pending reference became the part's
    listed = await media.attachments([message_id])
    assert listed == {message_id: [saved]}
    assert saved.info == {"kind": "text", "size": 4} and saved.size == 4


# garbage collection --------------------------------------------------------------


async def test_collector_removes_unreferenced_content_after_the_grace_period(
    media: MediaStore, clock: Clock, worker: DatabaseWorker
) -> None:
    kept = await media.put(b"referenced", "text/plain", refs=1)
    dropped = await media.put(b"released", "text/plain", refs=1)
    await media.release(dropped)
    assert await media.collect_garbage() == []  # released a moment ago: still in grace
    clock.now += 2 * HOUR
    assert await media.collect_garbage() == [media.path(dropped)]
    assert row(worker, dropped) is None and not media.path(dropped).exists()
    assert media.path(kept).exists() and row(worker, kept) is not None


async def test_collector_removes_stray_files_only_when_old(media: MediaStore, clock: Clock) -> None:
    data = b"a file without a row"
    sha = hashlib.sha256(data).hexdigest()
    stray = media.path(sha)
    stray.parent.mkdir(parents=True)
    stray.write_bytes(data)
    leftover = stray.parent / f"{TMP_PREFIX}crashed"
    leftover.write_bytes(b"half")
    foreign = media.files.root / "README.txt"
    foreign.write_text("not ours")
    assert await media.collect_garbage() == []  # may be being added right now
    clock.now += 2 * HOUR
    assert sorted(await media.collect_garbage()) == sorted([stray, leftover])
    assert media_files(media.files.root) == [foreign]


async def test_targeted_collection_is_immediate(media: MediaStore) -> None:
    sha = await media.put(b"chip content", "text/plain", refs=1)
    other = await media.put(b"other", "text/plain", refs=0)
    await media.release(sha)
    assert await media.collect_garbage(only=[sha]) == [media.path(sha)]
    assert media.path(other).exists()  # not asked about, and in its grace period


async def test_collector_never_deletes_content_a_message_part_uses(
    media: MediaStore, worker: DatabaseWorker, clock: Clock
) -> None:
    sha, pending_id = await media.put_pending(b"in use", "text/plain")
    message_id = message_in_db(worker)
    attachment = Attachment(sha, "a.txt", "text/plain", "file", 6)
    await media.attach(message_id, [(pending_id, attachment)])
    await media.release(sha, 10)  # a buggy caller drops the count to zero
    clock.now += 48 * HOUR
    assert await media.collect_garbage() == []
    assert media.path(sha).exists()
    released = await media.release_messages([message_id])
    assert released == [media.path(sha)] and not media.path(sha).exists()
    assert await media.release_messages([message_id]) == []  # idempotent


async def test_release_in_the_purge_transaction(media: MediaStore, worker: DatabaseWorker) -> None:
    """How a purge composes: release the parts' media, delete the messages, one
    transaction."""
    sha = await media.put(b"shared", "text/plain")
    first, second = message_in_db(worker), message_in_db(worker)
    attachment = Attachment(sha, "s.txt", "text/plain", "file", 6)
    await media.attach(first, [(None, attachment)])
    await media.attach(second, [(None, attachment), (None, attachment)])
    assert await media.ref_count(sha) == 3

    def purge(db: Database) -> list[str]:
        with write(db) as conn:
            released = attachments_repo.release_message_media(conn, [second])
            conn.execute("DELETE FROM messages WHERE id = ?", [second])
        return released

    assert worker.run_sync(purge) == [sha]
    assert await media.ref_count(sha) == 1


async def test_expired_pending_references_are_released(media: MediaStore, clock: Clock) -> None:
    sha, _ = await media.put_pending(b"left by a crash", "text/plain")
    assert await media.expire_pending(24 * HOUR) == []
    clock.now += 25 * HOUR
    assert await media.expire_pending(24 * HOUR) == [sha]
    assert await media.ref_count(sha) == 0
    assert await media.collect_garbage(only=[sha]) == [media.path(sha)]
