"""Atomic writes, safe reads and cross-process locks: the only place files are written (the
reads themselves live in `reading.py` and are re-exported here).

The named write primitives: `atomic_write` (and `update_text` over it) for memory files,
`create_file` for a file that must not exist yet, `write_derived` for state a rebuild
recomputes, `append_line`/`append_bytes` for logs, `append_journal` for journals a reader
replays, `remove_file` for a file that moved away, `remove_unchanged` for the old copy of a
moved note, `claim` for taking a journal file away from other processes. Whole folders have
theirs in `fsio_folders`.

Inside `announcing(callback)`, each of them first tells the callback which files it is about
to change (a worker records them, so that what a killed run changed is still committed).

Every write goes to a temp file in the target's folder, is fsynced, then renamed over the
target (or, when the file must be the one braniac read, exchanged with it in one step), so a
crash at any instant leaves the old file or the new one, never half of each. A file a person
made read-only is never replaced, and one still being written in place is waited for.
The cross-process locks (infra/locks.py) are taken through `fsio.locked`.

Lock order, outermost first, for any worker that holds more than one:
    ltm  ->  stm  ->  index
"""
from __future__ import annotations

import contextlib
import errno
import os
import secrets
import time
from pathlib import Path
from typing import Callable

from .errors import LockBusy, UnsafePath
from .intents import announce, announcing as announcing
from .locks import locked as locked  # (the locks live in locks.py; every worker takes them from here)
from .checked import MOVING_SUFFIX as MOVING_SUFFIX, ConcurrentEdit as ConcurrentEdit, fsync_dir as _fsync_dir
from .checked import recover_removal as recover_removal, remove_unchanged as remove_unchanged, replace_unchanged
from .checked import TEMP_SUFFIX as TEMP_SUFFIX, discard_stale_temp as discard_stale_temp, holds_a_save as holds_a_save
from .checked import beside_its_note as beside_its_note, kept_beside as kept_beside, uuid_home as uuid_home
from .checked import uuid_homes as uuid_homes
from .filestate import exchange as exchange, mark_complete, refuse_read_only as refuse_read_only
from .filestate import same_version as same_version, settled_stat as settled_stat
# the read side (every read of a vault file, and keeping paths inside the vault), re-exported
# so that every caller finds reads and writes in one place
from .reading import (MAX_TEXT_BYTES, confine, ensure_inside, inside, is_regular_file, is_symlink_loop,  # noqa: F401
                      open_regular, read_bytes, read_text, real_path, vault_root_of)


# ---------------------------------------------------------------------------- writes

def atomic_write(path: Path, data: str | bytes, *, expect_unchanged: os.stat_result | None = None,
                 durable: bool = True) -> os.stat_result:
    """Replace `path` with `data` atomically; returns the stat of the file written (what a later
    `expect_unchanged` compares with).

    With `expect_unchanged` (a stat taken when the file was read), refuse with ConcurrentEdit
    if someone else (a person's editor, say) changed the file meanwhile, so their edit is
    never overwritten by a stale copy: the check and the replacement are one step (see
    `checked.replace_unchanged`). A file or folder a person made read-only is never replaced
    (ReadOnlyFile). `durable=False` skips the fsyncs, for derived state that is rebuilt if a
    crash loses it: readers still never see a half-written file.
    """
    path = Path(path)
    announce(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        current: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        current = None
    if durable:  # (derived state under .braniac/ is braniac's own)
        refuse_read_only(path, current)
    if expect_unchanged is not None and (current is None or not same_version(current, expect_unchanged)):
        raise ConcurrentEdit(path)
    temp = folder / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    ours = os.fstat(fd).st_ino
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if current is not None:
                os.chmod(temp, current.st_mode & 0o777)
            mark_complete(handle.fileno())
            if durable:
                os.fsync(handle.fileno())
            written = os.fstat(handle.fileno())
        if expect_unchanged is not None:
            replace_unchanged(temp, path, expect_unchanged, written)
        else:
            os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            if os.lstat(temp).st_ino == ours:  # only ever our own temp file
                os.unlink(temp)
        raise
    if durable:
        _fsync_dir(folder)
    return written


def read_settled(path: Path, *, attempts: int = 5, **options) -> tuple[str, os.stat_result | None]:
    """`read_text(path, **options)` of a file nobody is writing in place (see
    `filestate.settled_stat`), with the stat of the very version read: a save that began
    between the stat and the read is read again once it is done, never half of it. (None as
    the stat only when the file cannot be stat'ed: `read_text` then says why.)"""
    for _ in range(attempts):
        try:
            before = settled_stat(path)
        except OSError:
            return read_text(path, **options), None   # (raises its clear error)
        text = read_text(path, **options)
        with contextlib.suppress(OSError):
            if same_version(os.stat(path), before):
                return text, before
    raise LockBusy(f"{path}: kept changing while braniac read it; try again")


def update_text(path: Path, change: Callable[[str], str], *, attempts: int = 5,
                versions: dict[Path, os.stat_result] | None = None) -> str:
    """Read, change and atomically rewrite a text file, retrying if it was edited meanwhile
    (the change is applied again to the fresh text, so the other edit is kept). When it writes,
    `versions[path]` (if given) gets the stat of what it wrote."""
    for attempt in range(attempts):
        if attempt:
            time.sleep(0.005 * 2 ** attempt)   # an editor mid-save gets the moment it needs
        text, before = read_settled(path)
        if before is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
        new_text = change(text)
        if new_text == text:
            return text
        try:
            written = atomic_write(path, new_text, expect_unchanged=before)
        except ConcurrentEdit:
            continue
        if versions is not None:
            versions[Path(path)] = written
        return new_text
    raise LockBusy(f"{path}: kept changing while braniac tried to update it; try again")


def create_file(path: Path, data: str | bytes) -> bool:
    """Create `path` with `data` unless it exists (then False, and nothing changes): written in
    full beside it, then linked into place, so it is never seen half-written nor overwrites a
    file that appeared meanwhile. A failed write (a full disk) leaves nothing behind."""
    path = Path(path)
    announce(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if os.path.lexists(path):
        return False
    refuse_read_only(path)  # (its folder)
    temp = path.parent / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    try:
        with open(temp, "xb") as handle:
            handle.write(payload)
            handle.flush()
            mark_complete(handle.fileno())
            os.fsync(handle.fileno())
        try:
            os.link(temp, path)
            return True
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise  # a full disk, a read-only one: not a reason to write in place
            # a file system without hard links (exFAT, some network shares): create it
            # exclusively in place; never an overwrite, and removed again if the write fails
            return _create_in_place(path, payload)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


# what link() says on a file system that has no hard links
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EXDEV}


def _create_in_place(path: Path, payload: bytes) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    mine = os.fstat(fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            now = os.stat(path)
            if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                os.unlink(path)  # ours, half written: gone, as if never created
        raise
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
    announce(path)
    fd = _open_append(path, os.O_WRONLY)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _open_append(path: Path, access: int) -> int:
    """A log or journal opened for appending: never through a symlink that leaves the vault, never
    a FIFO (O_NONBLOCK: no waiting for a reader that never comes)."""
    flags = access | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
    root = vault_root_of(path)
    real = os.path.realpath(path)
    if root is None or not inside(root, Path(real)):
        raise UnsafePath(f"{path}: a symlink that leaves the vault; braniac will not write through it")
    return os.open(real, flags, 0o644)


def append_journal(path: Path, data: bytes) -> tuple[int, os.stat_result]:
    """Append whole lines to a journal whose last line a crash may have torn (they then start on
    a fresh line), with a single O_APPEND write. Returns the size before and the stat after, so
    a reader that had read up to the old end knows whether anyone else appended meanwhile."""
    fd = _open_append(path, os.O_RDWR)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        return size, os.fstat(fd)
    finally:
        os.close(fd)


def claim(path: Path, claimed: Path) -> bool:
    """Take a file for this process by renaming it; only one of several racing processes wins."""
    announce(path, claimed)
    try:
        os.replace(path, claimed)
        return True
    except FileNotFoundError:
        return False


def remove_file(path: Path) -> None:
    """Remove a file braniac moved elsewhere (organization's moves, the rotated access log)."""
    announce(path)
    os.unlink(path)




def stale_temp_files(root: Path) -> list[Path]:
    """Temp files a killed writer left behind (harmless; reported by doctor)."""
    return sorted(p for p in Path(root).rglob(f"*{TEMP_SUFFIX}") if ".git" not in p.parts)
