"""What changed on disk since the index last saw it: the vault's memory files, walked (all of
them, or given paths and folders) and compared with the file list by mtime and size, then by
content hash."""
from __future__ import annotations

import os
import stat as stat_mod
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

from ..infra.fsio import inside
from ..vault.layout import MEMORY_ROOTS, NOT_MEMORY_NAMES
from .documents import indexable, read_file, recorded_mtime


class Changes(NamedTuple):
    to_index: list[tuple[str, os.stat_result, bytes | None, str]]   # (rel, stat, bytes, hash)
    to_delete: list[str]
    touched: dict[str, tuple[int, int]]     # same content, new (mtime, size)

    @property
    def empty(self) -> bool:
        return not (self.to_index or self.to_delete or self.touched)


def walk(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """(vault-relative path, stat) of every Markdown file that belongs in the index."""
    for top in MEMORY_ROOTS:
        yield from _walk(root, os.path.join(root, top))


def _walk(root: Path, start: str) -> Iterator[tuple[str, os.stat_result]]:
    # Plain strings and os.scandir: pathlib objects made this walk 5x slower at 10k notes.
    cut = len(str(root)) + 1
    stack = [start]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in NOT_MEMORY_NAMES:   # layout.is_memory_name, inlined: per file
                continue
            try:
                if entry.is_symlink():
                    if entry.is_dir() or not inside(root, Path(entry.path)):
                        continue  # a linked folder is indexed where it really is; never leave the vault
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif name.endswith(".md") and entry.is_file():  # not a FIFO or socket: reading one would hang
                    rel = entry.path[cut:]
                    yield (rel if os.sep == "/" else rel.replace(os.sep, "/")), entry.stat()
            except OSError:
                continue  # vanished meanwhile


def _stat_paths(root: Path, rels: Iterable[str]) -> Iterator[tuple[str, os.stat_result]]:
    """Like `walk`, for given paths; a folder stands for every file under it."""
    for rel in rels:
        if not indexable(rel):
            continue
        path = os.path.join(root, rel)
        try:
            st = os.stat(path)
            # Through a linked folder the same file would be indexed twice: take only real paths
            # (the file itself may be a link inside the vault, as `walk` allows).
            if os.path.realpath(os.path.dirname(path)) != os.path.dirname(path):
                continue
        except OSError:
            continue
        if stat_mod.S_ISDIR(st.st_mode):
            if not os.path.islink(path):
                yield from _walk(root, path)
        elif stat_mod.S_ISREG(st.st_mode) and rel.endswith(".md"):
            if os.path.islink(path) and not inside(root, Path(path)):
                continue
            yield rel, st


def relative_paths(root: Path, paths: Iterable[Path | str]) -> list[str]:
    """The vault-relative forms of paths (absolute, or relative to the vault), sorted, each
    once; paths outside the vault are left out."""
    found = set()
    for path in map(Path, paths):
        if not path.is_absolute():
            path = root / path
        try:
            found.add(Path(os.path.normpath(path)).relative_to(root).as_posix())
        except ValueError:
            continue
    return sorted(found)


def diff(root: Path, files: dict[str, dict], only: list[str] | None = None) -> Changes:
    """What changed on disk since the file list `files` was written: every memory file, or only
    the paths (and folders) in `only`."""
    candidates = walk(root) if only is None else _stat_paths(root, only)
    seen, to_index, touched = set(), [], {}
    for rel, st in candidates:
        if rel in seen:
            continue  # given both a folder and a file inside it
        seen.add(rel)
        record = files.get(rel)
        if record is not None and record.get("m") == st.st_mtime_ns and record.get("s") == st.st_size:
            continue
        try:
            data, digest = read_file(root, rel, st)
        except OSError:
            continue
        mtime = recorded_mtime(st)
        if record is not None and record.get("h") == digest:
            if record.get("m") != mtime or record.get("s") != st.st_size:
                touched[rel] = (mtime, st.st_size)
            continue
        to_index.append((rel, st, data, digest))
    if only is None:
        scope: Iterable[str] = files.keys()
    else:
        # A folder (moved away, deleted, or new) stands for every indexed file under it.
        folders = tuple(r + "/" for r in only
                        if not r.endswith(".md") or os.path.isdir(os.path.join(root, r)))
        wanted = set(only)
        scope = ([r for r in files if r in wanted or r.startswith(folders)] if folders
                 else [r for r in only if r in files])
    to_delete = [rel for rel in scope if rel not in seen]
    return Changes(to_index, to_delete, touched)
