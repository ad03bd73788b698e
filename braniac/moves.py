"""Moving notes without breaking a single link.

A move writes the note at its new place (its own relative links re-aimed from there), then
rewrites every link in the vault that pointed at the old place (found by path or by the uuid
in the link), then removes the old file, then refreshes the `_index.md` files involved. Every
step is atomic and the list of moves is journaled first, so a run killed at any instant leaves
links that all resolve (the old file stays until nothing points at it), and the next run
finishes the job.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import notes
from .errors import NoteError
from .fsio import atomic_write, read_text
from .links import find_links, relative_target
from .ltm import refresh_indexes

if TYPE_CHECKING:
    from .vault import Vault


@dataclass(frozen=True)
class Move:
    old: Path
    new: Path
    status: str | None = None     # e.g. "archived": set in the note's frontmatter on the way


def journal_path(vault: "Vault") -> Path:
    return vault.state_dir / "organize" / "moves.json"


def pending(vault: "Vault") -> list[Move]:
    try:
        data = json.loads(journal_path(vault).read_text(encoding="utf-8"))
        return [Move(vault.root / m["old"], vault.root / m["new"], m.get("status")) for m in data["moves"]]
    except (OSError, ValueError, KeyError):
        return []


def apply_moves(vault: "Vault", moves: list[Move], written: set[Path]) -> None:
    if not moves:
        return
    journal = journal_path(vault)
    journal.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(journal, json.dumps({"moves": [{"old": vault.relative(m.old) if m.old.exists() else
                                                 str(m.old.relative_to(vault.root)),
                                                 "new": str(m.new.relative_to(vault.root)), "status": m.status}
                                                for m in moves]}))
    finish(vault, moves, written)


def finish(vault: "Vault", moves: list[Move], written: set[Path]) -> None:
    """Steps 2-5 (idempotent): copy, repair every referrer, remove the old files, indexes."""
    mapping = {m.old: m.new for m in moves}
    by_uuid: dict[str, Path] = {}
    for move in moves:
        if move.old.exists():
            try:
                note = notes.read(move.old)
            except NoteError:
                continue
            if move.status:
                note.set("status", move.status)
            note.body = _retarget(note.body, move.old, move.new, mapping)
            move.new.parent.mkdir(parents=True, exist_ok=True)
            from .ltm import ensure_folder
            ensure_folder(vault, move.new.parent, written)
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
    repair_links(vault, mapping, by_uuid, written)
    for move in moves:
        if move.old.exists() and move.new.exists():
            os.unlink(move.old)
            written.add(move.old)
    refresh_indexes(vault, {m.old.parent for m in moves} | {m.new.parent for m in moves}, written)
    journal_path(vault).unlink(missing_ok=True)


def _retarget(text: str, old_file: Path, new_file: Path, mapping: dict[Path, Path]) -> str:
    """Re-aim the relative links of a note that moves from old_file to new_file."""
    out, last = [], 0
    for link in find_links(text):
        if link.is_external or not link.target:
            continue
        target = link.resolve(old_file)
        target = mapping.get(target, target)
        out.append(text[last:link.start])
        out.append(_render(link, new_file, target))
        last = link.end
    out.append(text[last:])
    return "".join(out)


def _render(link, from_file: Path, target: Path) -> str:
    anchor = ""
    raw = link.target[1:-1] if link.target.startswith("<") else link.target
    if "#" in raw:
        anchor = "#" + raw.split("#", 1)[1]
    title = f' "uuid:{link.uuid}"' if link.uuid else ""
    return f"[{link.text}]({relative_target(from_file, target)}{anchor}{title})"


def repair_links(vault: "Vault", mapping: dict[Path, Path], by_uuid: dict[str, Path], written: set[Path],
                 files: Iterable[Path] | None = None) -> int:
    """Point every link that aims at a moved file (by path or by uuid) at its new place."""
    changed = 0
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
            out.append(_render(link, path, new))
            last, dirty = link.end, True
        if dirty:
            out.append(text[last:])
            atomic_write(path, "".join(out))
            written.add(path)
            changed += 1
    return changed
