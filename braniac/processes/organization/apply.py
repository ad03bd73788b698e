"""Applying a checked plan with braniac's own code: links in both notes, moves that repair
every link (journaled first, so a killed run is finished by the next), and the `_index.md` of
a folder a move emptied archived with it.

Each move is noted in the access log (`TS | MOVE | /old/path.md -> /new/path.md`, once it is
journaled), so the reads logged under a note's old path still count for it at its new place:
else the next run would see a much-read note that just moved up as never read (and archive
it), and the gate's probes would lose it.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock
from ...infra.errors import NoteError, ReadOnlyFile
from ...infra.fsio import append_line, refuse_read_only
from ...vault.access_log import logged
from ...vault import notes
from ...vault.claims import stable_uuid
from ...vault.folders import refresh_indexes
from ...vault.layout import ARCHIVE, FOLDER_INDEX
from ...vault.moves import Move, apply_moves
from .links import apply_link_changes
from .operations import ArchiveNote, LinkChange, Operation, Relocation

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def apply(vault: "VaultStore", operations: list[Operation], written: set[Path]) -> None:
    apply_link_changes(vault, [op for op in operations if isinstance(op, LinkChange)], written)
    moves = [Move(vault.root / op.path, vault.root / op.to, "archived" if isinstance(op, ArchiveNote) else None)
             for op in operations if isinstance(op, Relocation)]
    apply_moves(vault, moves, written, on_journaled=lambda done: note_moves(vault, done))
    _archive_emptied_indexes(vault, {m.old.parent for m in moves}, written)
    # the links changed: the Related Memories of the folders holding the notes that link
    refresh_indexes(vault, {p.parent for p in written if p.exists() and p.is_relative_to(vault.ltm_root)}, written)


def _archive_emptied_indexes(vault: "VaultStore", folders: set[Path], written: set[Path]) -> None:
    """A folder the moves left with nothing but its `_index.md` goes, the index archived under
    archive/merged-folders/ (nothing is deleted)."""
    leftover = []
    for folder in sorted(folders, key=lambda p: -len(p.parts)):
        if folder == vault.ltm_root or folder.parent == vault.ltm_root:
            continue  # the tiers themselves stay
        index = folder / FOLDER_INDEX
        if folder.is_dir() and index.exists() and [p.name for p in folder.iterdir()] == [FOLDER_INDEX]:
            try:
                refuse_read_only(index)
            except ReadOnlyFile:
                continue   # a person's read-only _index.md keeps its folder
            target = vault.ltm_root / ARCHIVE / "merged-folders" / folder.relative_to(vault.ltm_root)
            n = 2
            while target.exists():
                target = target.with_name(f"{folder.name}-{n}")
                n += 1
            # an _index.md braniac made has its folder's stable uuid: the archived one takes the
            # uuid of its new place, else a folder made again here would share it (a duplicate)
            rederived = None
            try:
                if notes.read(index).uuid == stable_uuid("index", vault.relative(folder)):
                    rederived = stable_uuid("index", vault.relative(target))
            except NoteError:
                pass
            leftover.append(Move(index, target / FOLDER_INDEX, uuid=rederived))
    if leftover:
        apply_moves(vault, leftover, written, on_journaled=lambda done: note_moves(vault, done))
        for move in leftover:
            with contextlib.suppress(OSError):
                move.old.parent.rmdir()
        refresh_indexes(vault, {m.old.parent.parent for m in leftover}, written)


def note_moves(vault: "VaultStore", moves: list[Move]) -> None:
    """`TS | MOVE | memory/…/old.md -> memory/…/new.md` lines (one append), read by usage.py: reads follow the note."""
    lines = [f"{clock.iso(clock.now())} | MOVE | {logged(vault.root, m.old)} -> {logged(vault.root, m.new)}"
             for m in moves]
    if lines:
        vault.access_log_path.parent.mkdir(parents=True, exist_ok=True)
        append_line(vault.access_log_path, "\n".join(lines))
