"""Atomic writes, safe reads and cross-process locks: the only place files are written (the
reads themselves live in `reading.py` and are re-exported here).

The named write primitives: `atomic_write` (and `update_text` over it) for memory files,
`create_file` for a file that must not exist yet, `write_derived` for state a rebuild
recomputes, `append_line`/`append_bytes` for logs, `append_journal` for journals a reader
replays, `swap_directory`, `publish_directory`, `remove_directory` and `copy_tree` for whole
folders, `claim` for taking a journal file away from other processes.

Every write goes to a temp file in the target's folder, is fsynced, then os.replace()d over
the target, so a crash at any instant leaves the old file or the new one, never half of each.
Locks are filelock locks under `.braniac/locks/`, one object per path per process (two
FileLock objects on one path in one process would block each other).

Lock order, outermost first, for any worker that holds more than one:
    ltm  ->  stm  ->  index
"""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import threading
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

from .errors import LockBusy
# the read side (every read of a vault file, and keeping paths inside the vault), re-exported
# so that every caller finds reads and writes in one place
from .reading import (MAX_TEXT_BYTES, confine, ensure_inside, inside, is_regular_file, is_symlink_loop,  # noqa: F401
                      open_regular, read_bytes, read_text, real_path, vault_root_of)

TEMP_SUFFIX = ".braniac-tmp"


# ---------------------------------------------------------------------------- writes

def atomic_write(path: Path, data: str | bytes, *, expect_unchanged: os.stat_result | None = None,
                 durable: bool = True) -> None:
    """Replace `path` with `data` atomically.

    With `expect_unchanged` (a stat taken when the file was read), refuse with ConcurrentEdit
    if someone else (a person's editor, say) changed the file meanwhile, so their edit is
    never overwritten by a stale copy. `durable=False` skips the fsyncs, for derived state that
    is rebuilt if a crash loses it: readers still never see a half-written file.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, os.stat(path).st_mode & 0o777)
        if expect_unchanged is not None and _changed_since(path, expect_unchanged):
            raise ConcurrentEdit(path)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    if durable:
        _fsync_dir(folder)


class ConcurrentEdit(Exception):
    """The file changed between our read and our write; the caller re-reads and retries."""


def _changed_since(path: Path, before: os.stat_result) -> bool:
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return True
    return (now.st_mtime_ns, now.st_size, now.st_ino) != (before.st_mtime_ns, before.st_size, before.st_ino)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def update_text(path: Path, change: Callable[[str], str], *, attempts: int = 5) -> str:
    """Read, change and atomically rewrite a text file, retrying if it was edited meanwhile."""
    for _ in range(attempts):
        before = os.stat(path)
        text = read_text(path)
        new_text = change(text)
        if new_text == text:
            return text
        try:
            atomic_write(path, new_text, expect_unchanged=before)
            return new_text
        except ConcurrentEdit:
            continue
    raise LockBusy(f"{path}: kept changing while braniac tried to update it; try again")


def create_file(path: Path, data: str | bytes) -> bool:
    """Create `path` with `data` unless it exists (then False, and nothing changes): written in
    full beside it, then linked into place, so it is never seen half-written nor overwrites a
    file that appeared meanwhile."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    temp = path.parent / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    with open(temp, "xb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(temp, path)
        return True
    except FileExistsError:
        return False
    except OSError:
        # a file system without hard links (exFAT, some network shares): create it exclusively
        # in place; never an overwrite, though a crash mid-write could leave it short
        return _create_in_place(path, payload)
    finally:
        os.unlink(temp)


def _create_in_place(path: Path, payload: bytes) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    return True


def write_derived(path: Path, data: str | bytes) -> None:
    """Derived state (the search index's file list, read counts, markers a re-run recomputes):
    never half-written, but no fsync, since a crash that loses it only costs a rebuild."""
    atomic_write(path, data, durable=False)


def append_line(path: Path, line: str) -> None:
    """Append one line with a single O_APPEND write (whole lines, even from many processes)."""
    append_bytes(path, (line.rstrip("\n") + "\n").encode("utf-8"))


def append_bytes(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Append with a single O_APPEND write, so concurrent appenders never interleave within it;
    `durable` fsyncs it (an append that must survive a crash before the caller goes on)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def append_journal(path: Path, data: bytes) -> tuple[int, os.stat_result]:
    """Append whole lines to a journal whose last line a crash may have torn (they then start on
    a fresh line), with a single O_APPEND write. Returns the size before and the stat after, so
    a reader that had read up to the old end knows whether anyone else appended meanwhile."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        return size, os.fstat(fd)
    finally:
        os.close(fd)


def swap_directory(staging: Path, target: Path) -> None:
    """Put a fully built directory in place of `target` (the search index after a rebuild):
    readers see the old one or the new one, and the old one is removed afterwards."""
    old = target.with_name(f"{target.name}.old-{os.getpid()}-{secrets.token_hex(2)}")
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    _fsync_dir(target.parent)
    shutil.rmtree(old, ignore_errors=True)


def copy_tree(source: Path, target: Path, *, hard_links: bool = False) -> None:
    """A scratch copy of a folder (organization's staging vault under .braniac/); with
    `hard_links`, files are linked, not copied, which is safe for files braniac only ever
    replaces and never edits in place. A missing source copies nothing."""
    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if Path(source).is_dir():
        shutil.copytree(source, target, symlinks=True, copy_function=link_or_copy if hard_links else shutil.copy2)


def claim(path: Path, claimed: Path) -> bool:
    """Take a file for this process by renaming it; only one of several racing processes wins."""
    try:
        os.replace(path, claimed)
        return True
    except FileNotFoundError:
        return False


def publish_directory(staging: Path, target: Path) -> bool:
    """Move a fully prepared directory (e.g. a new folder with its _index.md) into place in one
    rename, so nobody sees it half made; False if `target` appeared meanwhile (theirs stands,
    and `staging` is removed)."""
    try:
        os.rename(staging, target)
        return True
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        return False


def remove_directory(folder: Path) -> None:
    """Remove a folder in one rename out of sight, then delete it: never seen half deleted."""
    hidden = folder.with_name(f".{folder.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    os.rename(folder, hidden)
    shutil.rmtree(hidden, ignore_errors=True)


# ----------------------------------------------------------------------------- locks

_locks: dict[str, FileLock] = {}
_locks_guard = threading.Lock()


def _lock_for(path: Path) -> FileLock:
    key = str(Path(path).absolute())
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            Path(key).parent.mkdir(parents=True, exist_ok=True)
            lock = _locks[key] = FileLock(key)
        return lock


@contextlib.contextmanager
def locked(path: Path, *, timeout: float = 30.0, what: str = "") -> Iterator[None]:
    """Hold the cross-process lock at `path`. timeout=0 tries once (for background passes)."""
    lock = _lock_for(path)
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        name = what or Path(path).stem
        raise LockBusy(f"another braniac process is using the {name} (lock {path}); try again shortly") from None
    try:
        yield
    finally:
        lock.release()


def stale_temp_files(root: Path) -> list[Path]:
    """Temp files a killed writer left behind (harmless; reported by doctor)."""
    return sorted(p for p in Path(root).rglob(f"*{TEMP_SUFFIX}") if ".git" not in p.parts)
