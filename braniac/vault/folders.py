"""Long-term folders and their `_index.md`: making a folder with the `_index.md` braniac gives
it, and keeping every `_index.md` from a changed folder up to `memory/long_term/` current.
"""
from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import folder_index
from .adoption import adopted_text
from .pass_reads import PassReads
from ..infra.errors import NoteError, ReadOnlyFile
from ..infra.fsio import (TEMP_SUFFIX, ConcurrentEdit, atomic_write, beside_its_note, inside, is_regular_file,
                          read_text, real_path, settled_stat)
from ..infra.fsio_folders import publish_directory, remove_tree
from ..infra.notices import notice
from .claims import parse_fact, stable_uuid
from .folder_index import Entry, IndexFile
from .folder_related import refresh_related
from .layout import FOLDER_INDEX, event_id_of_file, event_order
from .links import plain

if TYPE_CHECKING:
    from .store import VaultStore


# ---------------------------------------------------------------------- making folders

def write_new_index(vault: "VaultStore", folder: Path, into: Path) -> Path:
    """Write the `_index.md` of the new folder `folder` into `into` (the folder itself, or a
    hidden one renamed into place later): its title and summary come from the folder's name,
    its uuid from the folder's place, so a re-run writes the same file."""
    title = folder.name.replace("-", " ").capitalize()
    index = folder_index.new(folder, title, f"Memories about {folder.name.replace('-', ' ')}.")
    index.note.set("uuid", stable_uuid("index", vault.relative(folder)))
    index.note.set("summary_by", "braniac")
    path = into / FOLDER_INDEX
    atomic_write(path, index.render())
    return path


def ensure_folder(vault: "VaultStore", folder: Path, written: set[Path]) -> None:
    """Create `folder` (inside memory/long_term/) and an _index.md in it and every parent."""
    for path in reversed(folders_up(vault, Path(folder))[:-1]):
        path.mkdir(exist_ok=True)
        if not (path / FOLDER_INDEX).exists():
            written.add(write_new_index(vault, path, path))


def publish_folders(vault: "VaultStore", folder: Path, written: set[Path]) -> None:
    """Create `folder` and the folders above it that are missing, each with its _index.md.
    Each is made out of sight (a hidden name) with its _index.md inside, then renamed into
    place: a killed run never leaves a long-term folder without its _index.md."""
    for path in [p for p in reversed(folders_up(vault, folder)[:-1]) if not p.exists()]:
        hidden = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        hidden.mkdir()
        try:
            write_new_index(vault, path, hidden)
        except BaseException:
            remove_tree(hidden)   # (a full disk, say): never a half-made folder left behind
            raise
        publish_directory(hidden, path)   # False when made meanwhile by someone else: theirs stands
        written.add(path / FOLDER_INDEX)
    ensure_folder(vault, folder, written)   # (a folder that exists but lacks its _index.md)


def folders_up(vault: "VaultStore", folder: Path) -> list[Path]:
    """`folder` and every folder above it up to memory/long_term/ itself, deepest first (none
    for a folder outside long-term memory)."""
    chain = []
    while folder.is_relative_to(vault.ltm_root):
        chain.append(folder)
        if folder == vault.ltm_root:
            break
        folder = folder.parent
    return chain


# ---------------------------------------------------------------------- keeping _index.md current

def describe(path: Path, reads: PassReads) -> tuple[str, str | None, str]:
    """(title, uuid, one-line description) of a note or folder for a manifest line."""
    target = path / FOLDER_INDEX if path.is_dir() else path
    try:
        note = reads.read(target)
    except NoteError:
        return path.name, None, ""
    if path.is_dir():
        index = IndexFile(note=note, path=target, sections=folder_index.split_sections(note.body))
        summary = " ".join(index.summary.split())
        return path.name + "/", note.uuid or None, summary[:140]
    description = note.text("description")
    if not description:  # a braniac note is best described by its first claim
        for line in note.body.splitlines():
            fact = parse_fact(line)
            if fact is not None and fact.sources:
                description = re.sub(r"^\d{4}-\d{2}-\d{2}\s+—\s+", "", fact.text)
                break
    if not description:
        for line in note.body.splitlines():
            text = line.strip()
            if text and not text.startswith(("#", "- ", "* ", "|", ">", "```")):
                description = text
                break
    # a one-line description is no place for a link (it would point from the wrong folder)
    return plain(note.title), note.uuid or None, " ".join(plain(str(description)).split())[:140]


def _written_by_braniac(description: str, child: Path, reads: PassReads) -> bool:
    """Whether a manifest description is one braniac derived (a folder's "Memories about …"
    summary, or a note's own words), which goes stale when the folder or note changes (a new
    note, a superseded first claim), rather than one a person wrote, which is theirs to keep."""
    if child.is_dir():
        return description.startswith("Memories about ")
    try:
        body = " ".join(reads.read(child).body.split())
    except NoteError:
        return False
    return description in body or description in body.replace("**", "") or description in " ".join(plain(body).split())


def refresh_indexes(vault: "VaultStore", folders: Iterable[Path], written: set[Path]) -> None:
    """Bring the manifest (and a braniac-written summary) of each folder, and of every folder
    above it, in line with what the folder holds. A person's descriptions are kept."""
    todo = {up for folder in folders for up in folders_up(vault, Path(folder))}
    reads = PassReads()
    for folder in sorted(todo):   # every folder has its _index.md before any Related Memories are counted
        if folder.is_dir() and not (folder / FOLDER_INDEX).exists() and any(folder.iterdir()):
            ensure_folder(vault, folder, written)
    for folder in sorted(todo, key=lambda p: -len(p.parts)):  # deepest first: parents see fresh summaries
        if folder.is_dir():
            _refresh_index(vault, folder, written, reads)


def _refresh_index(vault: "VaultStore", folder: Path, written: set[Path], reads: PassReads) -> None:
    index_path = folder / FOLDER_INDEX
    if not index_path.exists():
        if not any(folder.iterdir()):
            return  # an emptied folder on its way out gets no new _index.md
        ensure_folder(vault, folder, written)
    for _ in range(5):
        try:
            read_at = settled_stat(index_path)
            text = read_text(index_path)
            # a person's own _index.md without braniac's keys gets them, as adoption gives a note
            index = folder_index.parse(adopted_text(text, vault.relative(index_path), read_at) or text, index_path)
        except (NoteError, FileNotFoundError):
            return  # a broken _index.md is the person's to fix (doctor names it); never overwrite it
        if not _refreshed(vault, folder, index, reads):
            return
        index.note.touch()
        try:
            atomic_write(index_path, index.render(), expect_unchanged=read_at)
        except ConcurrentEdit:
            continue   # a person saved it meanwhile: refreshed again from their text
        except ReadOnlyFile as exc:
            notice(f"{vault.relative(index_path)}: not refreshed ({exc})")
            return
        written.add(index_path)
        return


def manifest_out_of_date(vault: "VaultStore", folder: Path) -> bool:
    """Whether the folder's manifest lists a file that is gone, or leaves out one that is there
    (a note a person renamed, moved in or deleted); False for a folder without a readable one."""
    try:
        manifest = folder_index.manifest_of(read_text(folder / FOLDER_INDEX), folder / FOLDER_INDEX)
    except (NoteError, OSError):
        return False   # none yet, or unreadable: the person's to fix (doctor names it)
    if {e.path for e in manifest} == _here(folder):
        return False   # the usual case, decided without resolving a path
    if any(not e.path.exists() for e in manifest):
        return True
    listed = {real_path(e.path) for e in manifest}
    return any(real_path(child / FOLDER_INDEX if child.is_dir() else child) not in listed
               for child in _listed_children(vault, folder))


def _here(folder: Path) -> set[Path]:
    """What a manifest lists of `folder`, as its entries' paths read, before symlinks are looked at."""
    found = set()
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir() and os.path.exists(os.path.join(entry.path, FOLDER_INDEX)):
                found.add(Path(os.path.normpath(os.path.join(entry.path, FOLDER_INDEX))))
            elif entry.name.endswith(".md") and entry.name != FOLDER_INDEX and entry.is_file():
                found.add(Path(os.path.normpath(entry.path)))
    return found


def _listed_children(vault: "VaultStore", folder: Path) -> list[Path]:
    """What a folder's manifest lists, in its order: its notes, and its folders with an `_index.md`."""
    children = [p for p in folder.iterdir() if not p.name.startswith(".") and (
        (p.is_dir() and (p / FOLDER_INDEX).exists()) or (p.suffix == ".md" and p.name != FOLDER_INDEX
                                                          and inside(vault.root, p) and is_regular_file(p)))]
    return sorted(sorted(children), key=_listed_order)


def _listed_order(child: Path) -> tuple[bool, tuple[str, str]]:
    """Folders first, then files by name; a day's archived events in time order."""
    event = event_id_of_file(child.name)
    return not child.is_dir(), event_order(event) if event else (child.name, "")


def _refreshed(vault: "VaultStore", folder: Path, index: IndexFile, reads: PassReads) -> bool:
    """Bring `index` in line with what `folder` holds; whether that changed it."""
    before = index.render()
    old = {real_path(e.path): e for e in index.manifest if e.path.exists()}
    by_uuid = {e.uuid: e for e in index.manifest if e.uuid}   # a note renamed by hand keeps its line's description
    entries = []
    children = _listed_children(vault, folder)
    style = vault.link_style   # (read once: it stats braniac.toml)
    for child in children:
        target = child / FOLDER_INDEX if child.is_dir() else child
        title, uuid, description = describe(child, reads)
        if beside_its_note(child):
            # listed so that a person sees it, under a name of its own and without the uuid of
            # the note it was kept beside, which links by that uuid mean
            title, uuid = f"{title} (conflict copy)", None
        kept = old.get(real_path(target)) or (by_uuid.get(uuid) if uuid else None)
        if kept and kept.description and not _written_by_braniac(kept.description, child, reads):
            description = kept.description  # a person's description is kept; braniac's own is refreshed
        entries.append(Entry(title, target, uuid, description, style))
    index.set_manifest(entries)
    refresh_related(vault, index, children, reads)
    if index.note.meta.get("summary_by") == "braniac" and entries:
        named = [e for e in entries if not beside_its_note(e.path)]
        names = ", ".join(e.text.rstrip("/") for e in named[:12])
        more = f" and {len(named) - 12} more" if len(named) > 12 else ""
        index.set_summary(f"Memories about {folder.name.replace('-', ' ')}: {names}{more}.")
    return index.render() != before
