"""Co-access links written into notes: each link lives in both notes' Related Memories."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock
from ...infra.errors import NoteError
from ...infra.fsio import update_text
from ...vault import notes
from ...vault.co_access import CO_ACCESSED, description
from ...vault.folder_index import Entry, join_sections, related_entries, set_related, split_sections
from .operations import LinkChange, LinkNotes

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def apply_link_changes(vault: "VaultStore", changes: list[LinkChange], written: set[Path]) -> None:
    for change in changes:
        weight = change.weight if isinstance(change, LinkNotes) else None
        _set_link(vault, change.a, change.b, weight, written)
        _set_link(vault, change.b, change.a, weight, written)


def _set_link(vault: "VaultStore", source_rel: str, target_rel: str, weight: float | None, written: set[Path]) -> None:
    """Add, reweigh or remove (weight None) one co-access link in a note's Related Memories."""
    source, target = vault.root / source_rel, vault.root / target_rel
    try:
        other = notes.read(target)
    except NoteError:
        return

    def relinked(text: str) -> str:
        note = notes.parse(text, path=source)
        sections = split_sections(note.body)
        entries = related_entries(sections, source)

        def points_at_target(entry: Entry) -> bool:
            return entry.path == target or bool(other.uuid and entry.uuid == other.uuid)
        if weight is None:  # prune: only the links organization made; a person's links stay
            entries = [e for e in entries if not (points_at_target(e) and CO_ACCESSED in e.description)]
        existing = next((e for e in entries if points_at_target(e)), None)
        if weight is not None:
            renewed = description(weight, clock.now())
            if existing is None:
                entries.append(Entry(other.title, target, other.uuid or None, renewed, vault.link_style))
            elif CO_ACCESSED in existing.description:
                existing.description = renewed
            # else a link someone wrote (even a bare one): it already links them, and it is theirs
        set_related(sections, source, entries)
        note.body = join_sections(sections)
        return note.render()

    # on the note as it is when written: a person's edit made meanwhile stays
    wrote: dict[Path, os.stat_result] = {}
    try:
        update_text(source, relinked, versions=wrote)
    except NoteError:
        return
    written.update(wrote)
