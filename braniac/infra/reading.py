"""Reading vault files safely, and keeping paths inside the vault (re-exported by `fsio`).

Every read of a vault file goes through `open_regular` (`read_bytes`, `read_text`): never through a symlink
that leaves the vault, never from a FIFO, socket or device (opening one would block for ever),
never past a size limit. Every path braniac derives from file content or a model's reply goes
through `confine` (`VaultStore.confined`) before anything is read or written there.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from .errors import NoteError, UnsafePath

MAX_TEXT_BYTES = 5 * 1024 * 1024  # a Markdown memory file larger than this is refused


def open_regular(path: Path, *, root: Path | None = None) -> BinaryIO:
    """`path` opened for reading in binary, if it is a regular file braniac may read: never
    through a symlink that leaves the vault (`root`, else the vault the path is in), never a
    FIFO, socket or device (opening one for reading would block for ever). Refusals are
    NoteErrors naming the file; a missing file is FileNotFoundError."""
    absolute = os.path.abspath(path)
    try:
        # the common case, a plain file: opened without following a last symlink, then where
        # it really is asked of the open file itself (no race with a swap on the way)
        fd = os.open(absolute, _FLAGS)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        # a symlink (or a loop): followed only to a place inside the vault
        real = os.path.realpath(absolute)
        _check_inside(path, absolute, real, root)
        try:
            fd = os.open(real, _FLAGS)
        except OSError as again:
            if again.errno == errno.ELOOP:
                raise UnsafePath(f"{path}: symlink loop; braniac will not follow it") from None
            raise
    else:
        try:
            _check_inside(path, absolute, _opened_path(fd, absolute), root)
        except BaseException:
            os.close(fd)
            raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NoteError(f"{path}: not a regular file ({_kind(mode)}); braniac reads only plain files")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


# O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (then refused by fstat)
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_PROC_FD = "/proc/self/fd"


def _opened_path(fd: int, absolute: str) -> str:
    """Where an open file really is: one readlink where /proc has it, else realpath."""
    try:
        return os.readlink(f"{_PROC_FD}/{fd}")
    except OSError:
        return os.path.realpath(absolute)


def _check_inside(path: Path, absolute: str, real: str, root: Path | None) -> None:
    """UnsafePath if `real` (where `path` leads) leaves the vault: `root`, else the nearest
    vault above `path` (a file outside any vault, such as a packaged prompt, is read as it is)."""
    if real == absolute:
        return    # no symlink on the way
    root = root if root is not None else vault_root_of(absolute)
    if root is not None and not inside(root, real):
        raise UnsafePath(f"{path}: leaves the vault (a symlink to {real}); braniac will not follow it")


def read_bytes(path: Path, *, limit: int | None = MAX_TEXT_BYTES, root: Path | None = None) -> bytes:
    """The bytes of a vault file, through `open_regular`, never more than `limit` bytes
    (None: a log, read whole)."""
    try:
        handle = open_regular(path, root=root)
    except FileNotFoundError:
        raise NoteError(f"{path}: file not found") from None
    with handle:
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            raise NoteError(f"{path}: too large ({size / 1048576:.1f} MB; the limit is {limit / 1048576:.0f} MB)")
        chunks, total = [], 0
        while True:   # the file may grow while it is read: never past the limit
            chunk = os.read(fd, max(size + 1 - total, 65536))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total > limit:
                raise NoteError(f"{path}: too large (grew past the limit of {limit / 1048576:.0f} MB while read)")


def read_text(path: Path, *, limit: int = MAX_TEXT_BYTES, root: Path | None = None) -> str:
    """Read a Markdown/text file (through `read_bytes`), refusing what a memory file cannot be:
    huge, binary, not UTF-8, not a regular file, or behind a symlink that leaves the vault."""
    data = read_bytes(path, limit=limit, root=root)
    if b"\x00" in data:
        raise NoteError(f"{path}: binary file (contains NUL bytes), not a Markdown note")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise NoteError(f"{path}:{line}: not valid UTF-8 (byte 0x{data[exc.start]:02x})") from None


def vault_root_of(path: str | Path) -> Path | None:
    """The nearest folder at or above `path` that is a braniac vault (has system/ and memory/)."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.isdir(os.path.join(folder, "system")) and os.path.isdir(os.path.join(folder, "memory")):
            return Path(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a plain file"


def is_regular_file(path: Path) -> bool:
    """Whether `path` (followed if it is a symlink) is a plain file: what a walk may read. A
    FIFO, socket or device named `*.md`, or a symlink loop, is not."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def real_path(path: Path) -> Path:
    """`path` with every symlink resolved; a symlink loop is left as it is (never an error)."""
    return Path(os.path.realpath(path))


def inside(root: Path, path: Path) -> bool:
    """True when `path`, with every symlink resolved, stays inside `root` (a symlink loop on
    the way leads nowhere, so not)."""
    try:
        real = os.path.realpath(path)
        top = os.path.realpath(root)
        return os.path.commonpath([real, top]) == top and not is_symlink_loop(real)
    except (OSError, ValueError):
        return False


def is_symlink_loop(path: str | Path) -> bool:
    """Whether resolving `path` runs into a symlink loop (realpath stops at the looping link)."""
    probe = os.path.realpath(path)
    while not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent
    return os.path.islink(probe)


def ensure_inside(root: Path, path: Path) -> Path:
    if not inside(root, path):
        raise UnsafePath(f"{path}: leaves the vault (symlink or path outside {root}); braniac will not follow it")
    return Path(path)


def confine(root: Path, path: str | Path, *, within: Path | None = None) -> Path:
    """`path` (relative to `root`, or absolute) as a normalized path, if it stays inside
    `within` (default: `root`) both as written (no `..` or absolute path leading out) and with
    every symlink resolved; else UnsafePath. Every path braniac derives from file content or a
    model's reply (event ids, titles, folders, move targets) goes through here before use."""
    limit = os.path.normpath(within if within is not None else root)
    text = os.fspath(path)
    if "\x00" in text or not text:
        raise UnsafePath(f"{text!r}: not a usable path")
    normal = os.path.normpath(os.path.join(root, text))
    if os.path.commonpath([normal, limit]) != limit or not inside(limit, normal):
        where = os.path.relpath(limit, root) if limit != os.path.normpath(root) else "the vault"
        raise UnsafePath(f"{text}: leaves {where} (a path or symlink outside it); braniac will not use it")
    return Path(normal)
