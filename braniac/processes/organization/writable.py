"""Read-only folders, found before anything is written: an operation that would have to write in
one (a note it changes, a folder whose `_index.md` it refreshes, a note whose link to a moving
note it repairs) is rejected up front, with the folder named, instead of failing halfway.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ...infra.errors import NoteError
from ...infra.fsio import read_text
from ...vault import notes
from ...vault.folders import folders_up
from ...vault.layout import ARCHIVE, is_memory_name
from ...vault.links import find_links
from .operations import LinkChange, Operation, Relocation

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def writable_only(vault: "VaultStore", operations: list[Operation],
                  reject: Callable[[str], None]) -> list[Operation]:
    """The operations that write only where braniac may write; the rest go to `reject`."""
    locked = read_only_folders(vault)
    if not locked or not operations:
        return operations
    kept = []
    for op in operations:
        blocked = sorted(folder for folder in _folders_written(vault, op, locked) if folder in locked)
        if blocked:
            reject(f"{op.summary()}: {vault.relative(blocked[0])}/ is read-only, so braniac leaves it as it is "
                   "(make the folder writable to let organization change it)")
        else:
            kept.append(op)
    return kept


def read_only_folders(vault: "VaultStore") -> set[Path]:
    """Long-term folders this process cannot create, replace or remove files in."""
    found = set()
    for here, dirs, _files in os.walk(vault.ltm_root):
        dirs[:] = [d for d in dirs if is_memory_name(d)]
        if not os.access(here, os.W_OK | os.X_OK):
            found.add(Path(here))
    return found


def _folders_written(vault: "VaultStore", op: Operation, locked: set[Path]) -> set[Path]:
    if isinstance(op, LinkChange):
        return {(vault.root / op.a).parent, (vault.root / op.b).parent}
    if not isinstance(op, Relocation):
        return set()
    old, new = vault.root / op.path, vault.root / op.to
    existing = new.parent
    while not existing.exists() and existing != vault.ltm_root:
        existing = existing.parent   # the folders below it are made by the move
    archive = vault.ltm_root / ARCHIVE   # where a folder the move empties goes
    folders = set(folders_up(vault, old.parent)) | set(folders_up(vault, existing))
    if archive.is_dir():
        folders.add(archive)
    return folders | _referrers_in(vault, old, locked)


def _referrers_in(vault: "VaultStore", moved: Path, locked: set[Path]) -> set[Path]:
    """The read-only folders holding a note that links to `moved` (by path or by its uuid):
    a move rewrites those links."""
    try:
        uuid = notes.read(moved).uuid
    except NoteError:
        uuid = ""
    found = set()
    for folder in locked:
        for path in folder.glob("*.md"):
            try:
                text = read_text(path)
            except NoteError:
                continue
            if any(not link.is_external and link.target and
                   (link.resolve(path) == moved or (uuid and link.uuid == uuid)) for link in find_links(text)):
                found.add(folder)
                break
    return found
