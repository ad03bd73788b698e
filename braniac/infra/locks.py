"""Cross-process locks: filelock locks under `.braniac/locks/`, one object per path per process
(two FileLock objects on one path in one process would block each other). Taken through
`fsio.locked`, outermost first:

    ltm  ->  stm  ->  index
"""
from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .errors import LockBusy

if TYPE_CHECKING:
    from filelock import FileLock

_locks: dict[str, "FileLock"] = {}
_locks_guard = threading.Lock()


def _lock_for(path: Path) -> "FileLock":
    # imported on the first lock: filelock's import (its asyncio locks) costs 130-180 ms, a
    # third of a command that reads and locks nothing (doctor, search, stats)
    from filelock import FileLock
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
    from filelock import Timeout
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


