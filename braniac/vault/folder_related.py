"""A folder's Related Memories (vault-format.md §6): the folders its notes point to.

Each note directly in a folder links elsewhere: Related Memories (co-access links carry their
weight; any other link counts 1) and the links of its body (the events its claims cite, a
person's Obsidian wikilinks). A
sub-folder passes up what its own `_index.md` found (indexes are refreshed deepest first).
Summed per target folder, the strongest few become the folder's own Related Memories, linked by
the uuid of their `_index.md`. An active folder does not point into the archive. braniac rewrites only the lines it wrote (described as
`N links from notes here`); a person's lines stay first, as written."""
from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..infra.errors import NoteError
from .pass_reads import PassReads
from .co_access import weight_of
from .folder_index import Entry, IndexFile, related_entries, split_sections
from .layout import ARCHIVE, FOLDER_INDEX
from .links import find_links
from .wikilinks import Resolver, find_wikilinks

if TYPE_CHECKING:
    from .store import VaultStore

MAX_RELATED = 5
_MARK = re.compile(r"^[0-9.]+ links? from notes here$")


def written_by_braniac(entry: Entry) -> bool:
    return bool(_MARK.match(entry.description))


def refresh_related(vault: "VaultStore", index: IndexFile, children: list[Path], reads: PassReads) -> None:
    """Set the folder's Related Memories: the person's entries, then the strongest folders.
    `reads`: the notes and files the pass over many folders has already read."""
    folder = index.path.parent
    mine = [e for e in index.related if not written_by_braniac(e)]
    taken = {e.path for e in mine} | {e.path.parent for e in mine}
    scores = _folder_scores(vault, folder, [c for c in children if not c.is_dir()], reads)
    for child in (c for c in children if c.is_dir()):
        for entry in _derived_entries(child / FOLDER_INDEX, reads):
            if _elsewhere(vault, folder, entry.path.parent, entry.path, reads):
                scores[entry.path.parent] = scores.get(entry.path.parent, 0.0) + _count(entry)
    chosen = sorted((f for f in scores if f / FOLDER_INDEX not in taken and f not in taken),
                    key=lambda f: (-scores[f], f.as_posix()))[:MAX_RELATED]
    derived = []
    for target in chosen:
        try:
            uuid = reads.read(target / FOLDER_INDEX).uuid or None
        except NoteError:
            continue
        weight = f"{scores[target]:g}"
        derived.append(Entry(f"{target.name}/", target / FOLDER_INDEX, uuid,
                             f"{weight} link{'' if weight == '1' else 's'} from notes here", vault.link_style))
    index.set_related(mine + derived)


def _derived_entries(index_path: Path, reads: PassReads) -> list[Entry]:
    try:
        note = reads.read(index_path)
    except NoteError:
        return []
    return [e for e in related_entries(split_sections(note.body), index_path) if written_by_braniac(e)]


def _count(entry: Entry) -> float:
    return float(entry.description.split(" ", 1)[0])


def _folder_scores(vault: "VaultStore", folder: Path, note_paths: list[Path],
                   reads: PassReads) -> dict[Path, float]:
    scores: dict[Path, float] = defaultdict(float)
    resolver: Resolver | None = None
    for path in note_paths:
        try:
            note = reads.read(path)
        except NoteError:
            continue
        related = {e.path: e for e in related_entries(split_sections(note.body), path)}
        targets = {link.resolve(path) for link in find_links(note.body) if not link.is_external}
        wikilinks = find_wikilinks(note.body)
        if wikilinks:   # (the vault's files are listed only for a folder whose notes have some)
            resolver = resolver or Resolver.of_vault(vault.root)
            found = (resolver.resolve(w.target, vault.relative(path)) for w in wikilinks if w.target)
            targets |= {vault.root / rel for rel in found if rel}
        for target in targets:
            other = target.parent
            if not _elsewhere(vault, folder, other, target, reads):
                continue
            entry = related.get(target)
            scores[other] += weight_of(entry.description) if entry is not None else 1.0
    return {f: round(s, 2) for f, s in scores.items()}


def _elsewhere(vault: "VaultStore", folder: Path, other: Path, target: Path, reads: PassReads) -> bool:
    """A folder of long-term memory that is not this one, above it or below it, and has an index
    (in the archive only for a folder in the archive)."""
    # as text, each with a trailing separator ("a/b/" starts with "a/"): Path's own tests are
    # the same comparison of parts, many times slower over a pass of the whole vault
    here, there, ltm = f"{folder}{os.sep}", f"{other}{os.sep}", f"{vault.ltm_root}{os.sep}"
    archive = f"{ltm}{ARCHIVE}{os.sep}"
    if there.startswith(archive) and not here.startswith(archive):
        return False
    return (not here.startswith(there) and not there.startswith(here) and there.startswith(ltm)
            and reads.is_file_inside(vault.root, other / FOLDER_INDEX) and reads.is_file_inside(vault.root, target))
