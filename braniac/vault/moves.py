"""Moving notes without breaking a single link.

A move takes the old file out of its folder's manifest, writes the note at its new place (its
own relative links re-aimed from there), then rewrites every link in the vault that pointed at
the old place (found by path or by the uuid in the link), then removes the old file, then
refreshes the `_index.md` files involved. Every step is atomic and the list of moves is
journaled first, so a run killed at any instant leaves links that all resolve (the old file
stays until nothing points at it), and the next run finishes the job.

While both copies exist, no manifest names the uuid at either place (the old entry goes first,
the new one comes last), so `braniac doctor` sees only warnings: the copy itself (the journal
tells it so) and a file not yet in its manifest.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from . import folder_index, notes
from ..infra.errors import NoteError
from ..infra.fsio import atomic_write, read_text, remove_file
from ..infra.fsio_folders import remove_directory
from .folders import publish_folders, refresh_indexes
from .layout import FOLDER_INDEX
from .links import find_links, relative_target

if TYPE_CHECKING:
    from .store import VaultStore


@dataclass(frozen=True)
class Move:
    old: Path
    new: Path
    status: str | None = None     # e.g. "archived": set in the note's frontmatter on the way
    # a new uuid for the file, for the one uuid that is not a file's own but its place's: the
    # stable uuid of a folder's braniac-made _index.md (a folder made again at the old place
    # gets that uuid again: two files would share it)
    uuid: str | None = None


def journal_path(vault: "VaultStore") -> Path:
    return vault.state_dir / "organize" / "moves.json"


def pending(vault: "VaultStore") -> list[Move]:
    try:
        data = json.loads(journal_path(vault).read_text(encoding="utf-8"))
        return [Move(vault.root / m["old"], vault.root / m["new"], m.get("status"), m.get("uuid"))
                for m in data["moves"]]
    except (OSError, ValueError, KeyError):
        return []


def apply_moves(vault: "VaultStore", moves: list[Move], written: set[Path],
                on_journaled: Callable[[list[Move]], None] | None = None) -> None:
    """Journal the moves, then do them. `on_journaled` runs once the journal is safe (organization
    notes the moves in the access log there: a run killed after it finishes the moves next time)."""
    if not moves:
        return
    entries = [{"old": vault.relative(m.old) if m.old.exists() else str(m.old.relative_to(vault.root)),
                "new": str(m.new.relative_to(vault.root)), "status": m.status, "uuid": m.uuid} for m in moves]
    atomic_write(journal_path(vault), json.dumps({"moves": entries}))
    if on_journaled is not None:
        on_journaled(moves)
    finish(vault, moves, written)


def finish(vault: "VaultStore", moves: list[Move], written: set[Path]) -> None:
    """Steps 2-5 (idempotent): copy, repair every referrer, remove the old files, indexes."""
    mapping = {m.old: m.new for m in moves}
    by_uuid: dict[str, Path] = {}
    renamed: dict[str, str] = {}   # old uuid -> new uuid (Move.uuid)
    # first out of the old manifests: else, once the copy exists, a manifest would name its uuid
    # at the old place while it is (also) at the new one, which doctor rightly calls a problem
    _unlist(vault, [m.old for m in moves if m.old.exists() and not m.new.exists()], written)
    for move in moves:
        if move.old.exists():
            try:
                note = notes.read(move.old)
            except NoteError:
                continue
            if move.status:
                note.set("status", move.status)
            if move.uuid and note.uuid and move.uuid != note.uuid:
                renamed[note.uuid] = move.uuid
                by_uuid[note.uuid] = move.new
                note.set("uuid", move.uuid)
            note.body = _retarget(note.body, move.old, move.new, mapping)
            publish_folders(vault, move.new.parent, written)
            atomic_write(move.new, note.render())
            written.add(move.new)
            if note.uuid:
                by_uuid[note.uuid] = move.new
        elif move.new.exists():
            try:
                uuid = notes.read(move.new).uuid
                if uuid:
                    by_uuid[uuid] = move.new
            except NoteError:
                pass
    repair_links(vault, mapping, by_uuid, written, renamed=renamed)
    # (again: a refresh by another worker after a killed run may have listed an old file anew)
    _unlist(vault, [m.old for m in moves if m.old.exists() and m.new.exists()], written)
    for move in moves:
        if move.old.exists() and move.new.exists():
            _remove(vault, move.old)
            written.add(move.old)
    refresh_indexes(vault, {m.old.parent for m in moves} | {m.new.parent for m in moves}, written)
    journal_path(vault).unlink(missing_ok=True)


def _unlist(vault: "VaultStore", olds: list[Path], written: set[Path]) -> None:
    """Drop the manifest entries naming these files (a note in its folder's _index.md, a folder's
    _index.md in its parent's). Until the final refresh the file is only unlisted (a warning)."""
    gone = {Path(os.path.normpath(p)) for p in olds}
    folders = {p.parent for p in gone} | {p.parent.parent for p in gone if p.name == FOLDER_INDEX}
    for folder in folders:
        index_path = folder / FOLDER_INDEX
        if not folder.is_relative_to(vault.ltm_root) or not index_path.exists():
            continue
        try:
            index = folder_index.read(index_path)
        except NoteError:
            continue
        entries = index.manifest
        kept = [e for e in entries if Path(os.path.normpath(e.path)) not in gone]
        if len(kept) < len(entries):
            index.set_manifest(kept)
            atomic_write(index_path, index.render())
            written.add(index_path)


def _remove(vault: "VaultStore", path: Path) -> None:
    """Remove a moved file. A folder's _index.md that was all the folder held takes the folder
    with it in one rename (out of sight, then deleted): never a folder without its _index.md."""
    folder = path.parent
    if (path.name == FOLDER_INDEX and folder.parent != vault.ltm_root and folder != vault.ltm_root
            and [p.name for p in folder.iterdir()] == [FOLDER_INDEX]):
        remove_directory(folder)
        return
    remove_file(path)


def _retarget(text: str, old_file: Path, new_file: Path, mapping: dict[Path, Path]) -> str:
    """Re-aim the relative links of a note that moves from old_file to new_file."""
    out, last = [], 0
    for link in find_links(text):
        if link.is_external or not link.target:
            continue
        target = link.resolve(old_file)
        # a note moving too is aimed at only once its copy exists (until then at its old place,
        # which repair_links re-aims after every copy is written): a kill between two copies
        # leaves no link to a file not yet written
        if target in mapping and mapping[target].exists():
            target = mapping[target]
        out.append(text[last:link.start])
        out.append(_render(link, new_file, target))
        last = link.end
    out.append(text[last:])
    return "".join(out)


def _render(link, from_file: Path, target: Path, uuid: str | None = None) -> str:
    anchor = ""
    raw = link.target[1:-1] if link.target.startswith("<") else link.target
    if "#" in raw:
        anchor = "#" + raw.split("#", 1)[1]
    uuid = uuid or link.uuid
    title = f' "uuid:{uuid}"' if uuid else ""
    return f"[{link.text}]({relative_target(from_file, target)}{anchor}{title})"


def repair_links(vault: "VaultStore", mapping: dict[Path, Path], by_uuid: dict[str, Path], written: set[Path],
                 files: Iterable[Path] | None = None, renamed: dict[str, str] | None = None) -> int:
    """Point every link that aims at a moved file (by path or by uuid) at its new place (and at
    its new uuid, for a file that changed it on the way: `renamed`)."""
    changed = 0
    renamed = renamed or {}
    for path in files if files is not None else vault.iter_markdown():
        try:
            text = read_text(path)
        except NoteError:
            continue
        out, last, dirty = [], 0, False
        for link in find_links(text):
            if link.is_external or not link.target:
                continue
            target = link.resolve(path)
            new = mapping.get(target)
            if new is None and link.uuid in by_uuid and not target.exists():
                new = by_uuid[link.uuid]
            if new is None and link.uuid in by_uuid and by_uuid[link.uuid] != target and target in mapping:
                new = by_uuid[link.uuid]
            if new is None or new == target:
                continue
            out.append(text[last:link.start])
            out.append(_render(link, path, new, renamed.get(link.uuid or "")))
            last, dirty = link.end, True
        if dirty:
            out.append(text[last:])
            atomic_write(path, "".join(out))
            written.add(path)
            changed += 1
    return changed
