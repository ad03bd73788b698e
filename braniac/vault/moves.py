"""Moving notes without breaking a single link.

A move takes the old file out of its folder's manifest, writes the note at its new place (its
own relative links re-aimed from there), then rewrites every link in the vault that pointed at
the old place (found by path or by the uuid in the link), then removes the old file (only as it
was copied: a person's save to the old place meanwhile is copied again, never deleted), then
refreshes the `_index.md` files involved. Every step is atomic and the list of moves is
journaled first, so a run killed at any instant leaves links that all resolve (the old file
stays until nothing points at it), and the next run finishes the job.

While both copies exist, no manifest names the uuid at either place (the old entry goes first,
the new one comes last), so `braniac doctor` sees only warnings: the copy itself (the journal
tells it so) and a file not yet in its manifest.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from . import folder_index, notes
from ..infra.errors import LockBusy, NoteError, ReadOnlyFile
from ..infra.fsio import (ConcurrentEdit, atomic_write, kept_beside, read_settled, read_text, recover_removal,
                          remove_unchanged, settled_stat)
from ..infra.textmerge import merge_texts
from ..infra.fsio import locked, same_version, update_text
from ..infra.notices import notice
from .folders import publish_folders, refresh_indexes
from .layout import FOLDER_INDEX
from .links import prose_links, relink
from .wikilink_moves import WikiRepair

if TYPE_CHECKING:
    from .store import VaultStore


# rounds of "the old place was saved again: merge that into the copy, then remove it"
REMOVAL_ATTEMPTS = 5


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
        # (confined: a journal is only a file under .braniac/, and a move never leaves long-term memory)
        return [Move(vault.confined(m["old"], within=vault.ltm_root), vault.confined(m["new"], within=vault.ltm_root),
                     m.get("status"), m.get("uuid")) for m in data["moves"]]
    except (OSError, ValueError, KeyError, TypeError, NoteError):
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
    for move in moves:   # what a killed run had taken out of sight goes back first
        recover_removal(move.old)
        if move.old.name == FOLDER_INDEX:
            recover_removal(move.old.parent)
    mapping = {m.old: m.new for m in moves}
    wiki = WikiRepair(vault, mapping)
    by_uuid: dict[str, Path] = {}
    renamed: dict[str, str] = {}   # old uuid -> new uuid (Move.uuid)
    copied: dict[Path, os.stat_result] = {}     # old file -> its version as copied (and relinked)
    versions: dict[Path, os.stat_result] = {}   # new file -> its version as braniac last wrote it
    copy_texts: dict[Path, str] = {}            # old file -> the text its copy was written with
    # first out of the old manifests: else, once the copy exists, a manifest would name its uuid
    # at the old place while it is (also) at the new one, which doctor rightly calls a problem
    _unlist(vault, [m.old for m in moves if m.old.exists() and not m.new.exists()], written)
    for move in moves:
        if move.old.exists():
            try:
                copied[move.old], versions[move.new], copy_texts[move.old] = _copy(
                    vault, move, mapping, by_uuid, renamed, written, wiki=wiki)
            except NoteError:
                continue
        elif move.new.exists():
            try:
                uuid = notes.read(move.new).uuid
                if uuid and kept_beside(move.new) is None:
                    by_uuid[uuid] = move.new
            except NoteError:
                pass
    repair_links(vault, mapping, by_uuid, written, renamed=renamed, pinned=copied, versions=versions, wiki=wiki)
    # (again: a refresh by another worker after a killed run may have listed an old file anew)
    _unlist(vault, [m.old for m in moves if m.old.exists() and m.new.exists()], written)
    folders = {m.old.parent for m in moves} | {m.new.parent for m in moves}
    for move in moves:
        if move.old.exists() and move.new.exists() and move.old in copied:
            _remove_old(vault, move, mapping, copied, copy_texts, written, wiki)
    refresh_indexes(vault, folders, written)
    # an editor that checked the old file just before it was removed, and renamed its save over
    # it just after, made it again: that save too goes into the copy (the folders, listed anew)
    recreated = [m for m in moves if m.old in copied and m.old.exists() and m.new.exists()]
    for move in recreated:
        _remove_old(vault, move, mapping, copied, copy_texts, written, wiki)
    if recreated:
        refresh_indexes(vault, folders, written)
    journal_path(vault).unlink(missing_ok=True)


def _copy(vault: "VaultStore", move: Move, mapping: dict[Path, Path], by_uuid: dict[str, Path],
          renamed: dict[str, str], written: set[Path], expect_new: os.stat_result | None = None,
          wiki: WikiRepair | None = None) -> tuple[os.stat_result, os.stat_result, str]:
    """Write the note at its new place, its links re-aimed from there. Returns the stat of the
    old file as read, the stat of the copy as written and the text written (the removal checks
    the first; a later copy merges into the copy what changed since the text)."""
    read_at, note = _as_moved(move, mapping, by_uuid, renamed, wiki)
    publish_folders(vault, move.new.parent, written)
    text = note.render()
    copy_at = atomic_write(move.new, text, expect_unchanged=expect_new)
    written.add(move.new)
    if note.uuid and kept_beside(move.new) is None:   # a conflict copy's uuid means its note
        by_uuid[note.uuid] = move.new
    return read_at, copy_at, text


def _as_moved(move: Move, mapping: dict[Path, Path], by_uuid: dict[str, Path],
              renamed: dict[str, str], wiki: WikiRepair | None) -> tuple[os.stat_result, "notes.Note"]:
    """The note at the old place as it reads at the new one (status, uuid, links re-aimed), and
    the stat of the version read."""
    read_at = settled_stat(move.old)
    note = notes.read(move.old)
    if move.status:
        note.set("status", move.status)
    if move.uuid and note.uuid and move.uuid != note.uuid:
        renamed[note.uuid] = move.uuid
        by_uuid[note.uuid] = move.new
        note.set("uuid", move.uuid)
    note.body = _retarget(note.body, move.old, move.new, mapping)
    if wiki is not None:
        note.body = wiki.relinked(note.body, move.old, move.new)
    return read_at, note


def _remove_old(vault: "VaultStore", move: Move, mapping: dict[Path, Path], copied: dict[Path, os.stat_result],
                copy_texts: dict[Path, str], written: set[Path], wiki: WikiRepair | None = None) -> None:
    """Remove the old file, only as it was copied. A person's save to the old place since the
    copy is merged into the copy (up to a few times), never deleted; so is one to both places,
    each keeping its lines (the copy may have been saved again, and re-written by braniac's link
    repair with that save in it: what the old place gained since the copy is added to what the
    new place holds now, never written over it). Should both have changed the same lines,
    both files stay (the journal is done with them) and a notice names both."""
    for attempt in range(REMOVAL_ATTEMPTS):
        read_at = copied[move.old]
        folder = move.old.parent
        if (move.old.name == FOLDER_INDEX and folder.parent != vault.ltm_root and folder != vault.ltm_root
                and [p.name for p in folder.iterdir()] == [FOLDER_INDEX]):
            # a folder's _index.md that was all it held takes the folder with it, in one rename
            # out of sight: never a folder without its _index.md
            done = remove_unchanged(folder, read_at, check=move.old)
        else:
            done = remove_unchanged(move.old, read_at)
        if done:
            written.add(move.old)
            return
        # the old place was saved since it was read: its editor gets the moment it needs, then
        # the save goes into the copy, and the removal follows at once (a person saving again
        # in between is what sends this round again)
        time.sleep(0.01 * 2 ** attempt)
        try:
            merged = _merge_into_copy(move, mapping, copy_texts[move.old], wiki)
        except (NoteError, LockBusy, ReadOnlyFile, FileNotFoundError):
            break    # (the copy unreadable, busy, read-only or deleted: the old place must stay)
        if merged is None:
            break
        copied[move.old], copy_texts[move.old] = merged
    notice(f"{vault.relative(move.old)} changed while organize moved it to {vault.relative(move.new)}; "
           "both are kept: merge them and delete the one you do not want")


def _merge_into_copy(move: Move, mapping: dict[Path, Path], copied_text: str,
                     wiki: WikiRepair | None) -> tuple[os.stat_result, str] | None:
    """Bring what the old place gained since it was copied (as `copied_text`) into the copy as it
    is now; returns the stat of the old place as read and its text as moved. None when the two
    cannot be merged line by line. The old place is read once; a save to the copy meanwhile
    only makes the merge run again on the copy's new text (update_text)."""
    with contextlib.suppress(FileNotFoundError):
        settled_stat(move.new)   # (an editor saving the copy is waited for first, not between the two)
    read_at, note = _as_moved(move, mapping, {}, {}, wiki)
    theirs = note.render()

    def merged(current: str) -> str:
        text = theirs if current == copied_text else merge_texts(current, copied_text, theirs)
        if text is None:
            raise _Unmergeable(move.new)
        notes.parse(text, path=move.new)    # (NoteError: both kept)
        return text
    try:
        update_text(move.new, merged)
    except _Unmergeable:
        return None
    return read_at, theirs


class _Unmergeable(Exception):
    """The old place and the copy changed the same lines differently."""


def _unlist(vault: "VaultStore", olds: list[Path], written: set[Path]) -> None:
    """Drop the manifest entries naming these files (a note in its folder's _index.md, a folder's
    _index.md in its parent's). Until the final refresh the file is only unlisted (a warning)."""
    gone = {Path(os.path.normpath(p)) for p in olds}
    folders = {p.parent for p in gone} | {p.parent.parent for p in gone if p.name == FOLDER_INDEX}
    for folder in folders:
        index_path = folder / FOLDER_INDEX
        if not folder.is_relative_to(vault.ltm_root) or not index_path.exists():
            continue
        def unlisted(text: str, index_path: Path = index_path) -> str:
            index = folder_index.parse(text, index_path)
            entries = index.manifest
            kept = [e for e in entries if Path(os.path.normpath(e.path)) not in gone]
            if len(kept) == len(entries):
                return text
            index.set_manifest(kept)
            return index.render()
        wrote: dict[Path, os.stat_result] = {}
        try:
            update_text(index_path, unlisted, versions=wrote)
            written.update(wrote)
        except NoteError:
            continue
        except ReadOnlyFile as exc:
            notice(f"a moved note is still listed in a read-only manifest ({exc})")


def _retarget(text: str, old_file: Path, new_file: Path, mapping: dict[Path, Path]) -> str:
    """Re-aim the relative links of a note that moves from old_file to new_file."""
    out, last = [], 0
    for link in prose_links(text):
        if link.is_external or not link.target:
            continue
        target = link.resolve(old_file)
        # a note moving too is aimed at only once its copy exists (until then at its old place,
        # which repair_links re-aims after every copy is written): a kill between two copies
        # leaves no link to a file not yet written
        if target in mapping and mapping[target].exists():
            target = mapping[target]
        out.append(text[last:link.start])
        out.append(relink(link, new_file, target))
        last = link.end
    out.append(text[last:])
    return "".join(out)


def repair_links(vault: "VaultStore", mapping: dict[Path, Path], by_uuid: dict[str, Path], written: set[Path],
                 files: Iterable[Path] | None = None, renamed: dict[str, str] | None = None,
                 pinned: dict[Path, os.stat_result] | None = None,
                 versions: dict[Path, os.stat_result] | None = None, wiki: WikiRepair | None = None) -> int:
    """Point every link that aims at a moved file (by path or by uuid) at its new place (and at
    its new uuid, for a file that changed it on the way: `renamed`). Each file is changed as it
    is at that moment (a person's edit made meanwhile stays); a read-only one is left alone.
    A `pinned` file (the old copy of a note being moved) is changed only if it is still the
    version copied, and its entry follows the change: a save since the copy is left for the
    removal to find. `versions` gets the stat of every other file written."""
    changed = 0
    renamed = renamed or {}
    pinned = {} if pinned is None else pinned
    new_places = set(mapping.values())

    def relinked(text: str, path: Path) -> str:
        text = _relinked(text, path, mapping, by_uuid, renamed)
        moving = path in mapping or path in new_places   # (a moving note's own links: `_copy`)
        return wiki.relinked(text, path) if wiki is not None and not moving else text

    for path in files if files is not None else vault.iter_markdown():
        try:
            # settled: an editor mid-save in place has not written the link back yet
            text, _read_at = read_settled(path)
        except NoteError:
            continue
        except LockBusy as exc:   # held open for writing all along (a log appended to): left, and said
            notice(f"a link to a moved note may not be repaired ({exc}); `braniac doctor --fix` repairs it later")
            continue
        if relinked(text, path) == text:
            continue
        try:
            if path in pinned:
                if not _repair_pinned(path, pinned, lambda t, path=path: relinked(t, path)):
                    continue
            else:
                # short_term.md is reflection's too: changed only under its lock (lock order ltm -> stm)
                guard = locked(vault.lock_path("stm"), what="short-term memory") if path == vault.stm_path else nullcontext()
                with guard:
                    update_text(path, lambda t, path=path: relinked(t, path), versions=versions)
        except NoteError:
            continue
        except (ReadOnlyFile, LockBusy) as exc:
            notice(f"a link to a moved note was not repaired ({exc})")
            continue
        written.add(path)
        changed += 1
    return changed


def _repair_pinned(path: Path, pinned: dict[Path, os.stat_result], change: Callable[[str], str]) -> bool:
    read_at = settled_stat(path)
    if not same_version(read_at, pinned[path]):
        return False
    try:
        pinned[path] = atomic_write(path, change(read_text(path)), expect_unchanged=read_at)
    except ConcurrentEdit:
        return False
    return True


def uuids_of(paths: Iterable[Path]) -> dict[str, Path]:
    """uuid -> path of these notes (an unreadable one, or one without a uuid, is left out)."""
    found = {}
    for path in paths:
        try:
            uuid = notes.read(path).uuid
        except NoteError:
            continue
        if uuid:
            found[uuid] = path
    return found


def referrers(vault: "VaultStore", olds: Iterable[Path]) -> dict[Path, set[Path]]:
    """The files whose links a move of each of `olds` would repair (as `repair_links` finds them:
    by path, or by uuid where the path leads nowhere)."""
    found: dict[Path, set[Path]] = {Path(p): set() for p in olds}
    uuids = uuids_of(found)
    for path in vault.iter_markdown():
        try:
            text = read_text(path)
        except NoteError:
            continue
        for link in prose_links(text):
            if link.is_external or not link.target:
                continue
            target = link.resolve(path)
            hit = target if target in found else (uuids.get(link.uuid or "") if not target.exists() else None)
            if hit is not None and hit != path:
                found[hit].add(path)
    return found


def _relinked(text: str, path: Path, mapping: dict[Path, Path], by_uuid: dict[str, Path],
              renamed: dict[str, str]) -> str:
    out, last = [], 0
    for link in prose_links(text):
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
        out.append(relink(link, path, new, renamed.get(link.uuid or "")))
        last = link.end
    out.append(text[last:])
    return "".join(out)
