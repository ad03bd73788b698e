"""Notes read by one pass over many folders: refreshing the _index.md files reads each note
three times or more (its manifest line, whether a description is braniac's own, the links it
counts for Related Memories)."""
from __future__ import annotations

import os
from pathlib import Path

from ..infra.fsio import inside
from .notes import Note, read


class PassReads:
    """A note is parsed once while its file stays the same (inode, size, modification time):
    the _index.md files the pass rewrites are read again. Only for reading: the Note returned
    is shared by every caller of the pass."""

    def __init__(self) -> None:
        self._notes: dict[Path, tuple[tuple[int, int, int], Note]] = {}
        self._files: dict[tuple[Path, Path], bool] = {}

    def read(self, path: Path) -> Note:
        try:
            st = os.stat(path)
        except OSError:
            return read(path)   # (its own clear error)
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        known = self._notes.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        note = read(path)
        self._notes[path] = (stamp, note)
        return note

    def is_file_inside(self, root: Path, path: Path) -> bool:
        """A regular file (not behind a link that leaves `root`), asked once per pass: the pass
        rewrites _index.md files in place of themselves, and makes no other file."""
        key = (root, path)
        if key not in self._files:
            self._files[key] = path.is_file() and inside(root, path)
        return self._files[key]
