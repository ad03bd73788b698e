"""What state a file is in before braniac replaces it, and the one system call that replaces a
file only if it is still the one braniac read.

- `same_version`: two stats of one path show the same file, unchanged.
- `refuse_read_only`: a file (or folder) a person made read-only is never replaced.
- `settled_stat`: a file someone is still writing in place is waited for, not read half-written.
- `open_for_writing`: whether a process still holds a file open to write it.
- `exchange`: renameat2(RENAME_EXCHANGE), two names swapped in one step (Linux).

fsio's writes use them; nothing here writes a file's content.
"""
from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from pathlib import Path
from typing import Callable

from .errors import LockBusy, ReadOnlyFile


def same_version(now: os.stat_result, before: os.stat_result) -> bool:
    """Whether two stats of one path show the same file, unchanged (inode, size, mtime)."""
    return (now.st_mtime_ns, now.st_size, now.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)


# ------------------------------------------------------------------ read-only files and folders

def read_only_mode(st: os.stat_result) -> bool:
    return not st.st_mode & 0o222


def read_only_message(path: Path, folder: Path | None = None) -> str:
    what = f"{path}: it is read-only" if folder is None else f"{folder}: the folder is read-only"
    return (f"{what}, so braniac left it unchanged; make it writable (chmod u+w) if braniac may "
            "update it, then run the command again")


def refuse_read_only(path: Path, current: os.stat_result | None = None) -> None:
    """ReadOnlyFile when a person made `path`, or the folder it is (or will be made) in,
    read-only. braniac could replace it anyway (a rename needs only the folder writable, and
    root may do anything), but a read-only file is a person saying "leave this alone"."""
    path = Path(path)
    if current is None:
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
    if current is not None and (read_only_mode(current) or not os.access(path, os.W_OK)):
        raise ReadOnlyFile(read_only_message(path))
    folder = path.parent
    while not os.path.isdir(folder) and folder != folder.parent:
        folder = folder.parent  # a folder still to be made: the one it will be made in
    with contextlib.suppress(FileNotFoundError):
        if read_only_mode(os.stat(folder)) or not os.access(folder, os.W_OK | os.X_OK):
            raise ReadOnlyFile(read_only_message(path, folder))


# ---------------------------------------------------------------- files still being written

# A person's editor that saves in place truncates the file and writes it in chunks: read in
# between, the file is half of itself. braniac marks its own writes complete: their mtime is set
# back (by less than a millisecond) to one whose nanoseconds below the millisecond are MARK_NS,
# a value the clock gives an in-place write once in a million. Any write since puts the clock's
# time there again, and a rename, chmod or link (braniac's own exchange giving a person's save
# back, say) touches only ctime, so the mark is never seen on a file someone is still writing.
# (The mark was once ctime > mtime: a rename in the middle of an in-place save made that true.)
# So only a file someone else wrote in the last SETTLE_S (longer than the pauses between an
# editor's chunks; RECENT_NS where mtimes are whole seconds) is watched, until its size and
# mtime stay put for SETTLE_S. A file system that keeps mtimes coarser than 100 ns loses the
# mark: braniac's own recent writes are then waited for too (slower, never wrong). The wall clock is right here: it is compared with mtimes, not
# written anywhere.
RECENT_NS = 1_000_000_000
SETTLE_S, SETTLE_STEP_S, SETTLE_LIMIT_S = 0.15, 0.01, 10.0
MARK_NS = 271_800     # (a multiple of 100 ns, what NTFS and SMB keep)


def _marked_mtime(mtime_ns: int) -> int:
    """The latest time before `mtime_ns` that carries the mark."""
    marked = mtime_ns - mtime_ns % 1_000_000 + MARK_NS
    return marked if marked < mtime_ns else marked - 1_000_000


def is_marked_complete(st: os.stat_result) -> bool:
    """Whether `st` is of a file braniac wrote in full, unchanged since (see above)."""
    return st.st_mtime_ns % 1_000_000 == MARK_NS


def mark_complete(fd: int) -> None:
    """Mark a file braniac has written in full (see above); its content is untouched."""
    if os.utime not in os.supports_fd:
        return   # (then braniac's own recent writes are waited for too: slower, never wrong)
    with contextlib.suppress(OSError):
        st = os.fstat(fd)
        os.utime(fd, ns=(st.st_atime_ns, _marked_mtime(st.st_mtime_ns)))


def _quiet_for(st: os.stat_result) -> float:
    """Seconds since the last write to the file, where its mtime says so to the sub-second (0
    on a file system that keeps whole seconds: there, quiet is watched, not read off)."""
    if not st.st_mtime_ns % 1_000_000_000:
        return 0.0
    return (time.time_ns() - st.st_mtime_ns) / 1e9


def settled_stat(path: Path) -> os.stat_result:
    """The stat of `path` once nobody is writing it in place: at once (no sleep) for a file
    braniac wrote or one not written for SETTLE_S (by its mtime, or in the last second where
    mtimes are whole seconds), else once its size and mtime stayed the same for SETTLE_S; and
    in either case only once no process holds it open for writing (an editor pausing longer
    than SETTLE_S between two chunks of one save is still saving). LockBusy if it keeps changing,
    or stays open for writing, for SETTLE_LIMIT_S."""
    st = os.stat(path)
    if (is_marked_complete(st) or _quiet_for(st) >= SETTLE_S or time.time_ns() - st.st_mtime_ns > RECENT_NS) \
            and not open_for_writing(path):
        return st
    quiet_since = started = time.monotonic()
    while True:
        time.sleep(SETTLE_STEP_S)
        now = os.stat(path)
        if not same_version(now, st):
            st, quiet_since = now, time.monotonic()
        elif (time.monotonic() - quiet_since >= SETTLE_S or is_marked_complete(now) or _quiet_for(now) >= SETTLE_S) \
                and not open_for_writing(path):
            return now
        if time.monotonic() - started > SETTLE_LIMIT_S:
            raise LockBusy(f"{path}: still being written (an editor saving it?); braniac left it alone, "
                           "try again once it is saved")


def open_for_writing(path: Path) -> bool:
    """Whether some process holds `path` open for writing (Linux; False where it cannot be told).

    An editor saving in place opens the file, checks it is the one it loaded, then truncates and
    writes: should braniac replace the file in between, everything the editor writes after goes
    to the inode braniac took away. The kernel knows who holds an inode open to write: a read
    lease (fcntl F_SETLEASE) is refused with EAGAIN exactly then, and is released at once. Its
    break signal is set to SIGURG, ignored by default, so a writer opening the file in the
    instant it is held costs nothing."""
    try:
        import fcntl
        import signal
        setlease, setsig = fcntl.F_SETLEASE, fcntl.F_SETSIG   # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.fcntl(fd, setsig, signal.SIGURG)
        fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)
        fcntl.fcntl(fd, setlease, fcntl.F_UNLCK)
        return False
    except OSError as exc:
        return exc.errno == errno.EAGAIN   # (EACCES: not the owner; EINVAL: no leases here)
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the exchange

# renameat2(2) through libc (glibc >= 2.28, Linux >= 3.15); elsewhere `exchange` says False
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
_renameat2: Callable[..., int] | None | bool = False


def _load_renameat2() -> Callable[..., int] | None:
    global _renameat2
    if _renameat2 is False:
        _renameat2 = None
        if sys.platform.startswith("linux"):
            import ctypes   # (here: a command that writes nothing does not pay for it)
            with contextlib.suppress(OSError, AttributeError):
                function = ctypes.CDLL(None, use_errno=True).renameat2
                function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                function.restype = ctypes.c_int
                _renameat2 = function
    return _renameat2  # type: ignore[return-value]


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing names in one step; False where the system or the file system cannot
    (then nothing changed). A missing name raises FileNotFoundError."""
    function = _load_renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(error, os.strerror(error), str(b))
