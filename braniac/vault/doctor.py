"""`braniac doctor`: check every file of the vault and name each problem with file and reason."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import folder_index, notes
from ..infra.errors import NoteError, STMError
from ..infra.fsio import (beside_its_note, holds_a_save, inside, is_regular_file, is_symlink_loop, kept_beside, read_text,
                         real_path, stale_temp_files, uuid_home)
from ..infra import git
from .layout import FOLDER_INDEX, event_id_of_file, is_event_id, is_memory_name, printable_id
from .links import WIKILINK_STYLE, Link, prose_links
from .moves import pending
from .wikilinks import Resolver, find_wikilinks

if TYPE_CHECKING:
    from .store import VaultStore


@dataclass(frozen=True)
class Finding:
    path: str        # relative to the vault root
    reason: str
    severity: str = "problem"   # "problem" makes doctor exit 1; "warning" does not

    def as_dict(self) -> dict:
        return asdict(self)


def check(vault: "VaultStore") -> list[Finding]:
    findings: list[Finding] = []

    def add(path: Path | str, reason: str, severity: str = "problem") -> None:
        try:
            rel = Path(path).absolute().relative_to(vault.root).as_posix()
        except ValueError:
            rel = str(path)
        findings.append(Finding(rel, reason, severity))

    for required in (vault.identity_path, vault.stm_path, vault.ltm_root / "_index.md"):
        if not required.exists():
            add(required, "missing (restore with `braniac init --force`)")

    _check_stm(vault, add)
    moving = pending(vault)   # a move copies first and removes last: both files exist meanwhile
    uuids: dict[str, Path] = {}
    holders: dict[str, int] = {}             # uuid -> how many files carry it
    copies: list[tuple[Path, str]] = []      # files named as conflict copies, and their uuids
    marked: list[Path] = []                  # files holding a conflict git wrote
    resolver = Resolver.of_vault(vault.root)
    for path in _walk_all(vault, add):
        if path == vault.stm_path:
            continue
        try:
            note = notes.read(path)
        except NoteError as exc:
            add(path, _reason(exc, path))
            continue
        in_ltm = path.is_relative_to(vault.ltm_root)
        if git.marked_conflict(note.frontmatter_text + note.body):
            marked.append(path)
        if in_ltm or note.meta:
            for reason in note.problems():
                add(path, reason)
        if note.uuid:
            held = uuids.get(note.uuid)
            if held is not None:
                if any({m.old, m.new} == {path, held} for m in moving):
                    add(path, f"an interrupted organize run is moving this note (uuid {note.uuid}); "
                              "`braniac organize` finishes it", "warning")
                elif kept_beside(held) is None and kept_beside(path) is None:
                    add(path, f"duplicate uuid {note.uuid} (also in {vault.relative(held)})")
            uuids[note.uuid] = uuid_home(held, path)
            holders[note.uuid] = holders.get(note.uuid, 0) + 1
        if kept_beside(path) is not None:
            copies.append((path, note.uuid))
        if in_ltm:
            _check_links(vault, path, note.body, add)
            _check_wikilinks(vault, resolver, path, note.body, add)
    for path, uuid in copies:
        original = kept_beside(path)
        # a person's own "notes.conflict-240315.md" is no copy: it shares no note's uuid or place
        if beside_its_note(path) or holders.get(uuid, 0) > 1:
            add(path, f"a conflict copy of {original.name}: braniac kept this version when two saves of that note "
                      f"crossed; merge what you need into {original.name}, then delete this file", "warning")

    _check_folders(vault, add, uuids)
    waiting: set[str] = set()
    if git.merge_in_progress(vault.root):   # a sync left files changed on both machines in the same lines
        waiting = set(git.unmerged(vault.root))
        for rel in sorted(waiting):
            add(rel, "git conflict from `braniac sync`: edit it to keep what you want (remove the <<<<<<< "
                     "======= >>>>>>> lines), then run `braniac sync`")
    if vault.stm_path.is_file():
        try:
            if git.marked_conflict(read_text(vault.stm_path)):
                marked.append(vault.stm_path)
        except (OSError, NoteError):
            pass      # (the STM check says why it cannot be read)
    for path in marked:
        # committed with its markers (by hand, or by a braniac that took them for text): no merge waits
        if vault.relative(path) not in waiting:
            add(path, "holds a git conflict (<<<<<<< ======= >>>>>>> lines): edit it to keep what you want "
                      "and remove those lines")
    for temp in stale_temp_files(vault.root):
        if holds_a_save(temp):
            add(temp, "temp file holding a save braniac was giving back when it was stopped: `braniac doctor "
                      "--fix` (or the next promotion or organize) puts it beside its note as a conflict copy", "warning")
        else:
            add(temp, "leftover temp file of an interrupted write (safe to delete)", "warning")
    return findings


def _reason(exc: Exception, path: Path) -> str:
    """'/abs/x.md:3: broken YAML…' -> 'line 3: broken YAML…' (the path is shown separately)."""
    message = str(exc)
    if message.startswith(str(path)):
        message = message[len(str(path)):].lstrip(":")
        line, sep, rest = message.partition(": ")
        if sep and line.isdigit():
            return f"line {line}: {rest}"
        return message.strip()
    return message


def _walk_all(vault: "VaultStore", add) -> list[Path]:
    """Every Markdown file of the memory; odd files (symlinks out, binaries) are reported."""
    found = []
    for folder, dirs, files in os.walk(vault.root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if is_memory_name(d))
        for d in list(dirs):
            if (here / d).is_symlink() and not inside(vault.root, here / d):
                add(here / d, "symlinked folder leaves the vault; braniac does not follow it")
                dirs.remove(d)
        for name in sorted(files):
            path = here / name
            if name.startswith("."):
                continue
            if path.is_symlink() and not inside(vault.root, path):
                add(path, "symlink loop; braniac cannot read it" if is_symlink_loop(path)
                    else "symlink leaves the vault; braniac does not follow it")
                continue
            if name.endswith(".md") and path != vault.stm_path and not is_regular_file(path):
                add(path, "not a regular file (a FIFO, socket or device); braniac never reads it")
            elif name.endswith(".md"):
                found.append(path)
            elif path.is_relative_to(vault.root / "memory"):
                add(path, "not a Markdown file; braniac ignores it", "warning")
    return found


def _check_stm(vault: "VaultStore", add) -> None:
    if not vault.stm_path.exists():
        return
    try:
        doc = vault.read_stm()
    except STMError as exc:
        add(vault.stm_path, str(exc))
        return
    for name in doc.missing_sections():
        add(vault.stm_path, f"section '{name}' is missing (vault-format.md §5)")
    seen = set()
    for event in doc.events:
        if not is_event_id(event.id):
            add(vault.stm_path, f"event heading '### {printable_id(event.id)}' is not an event id; promotion leaves "
                                "this event in short-term memory until it has a UTC timestamp heading "
                                "(### 2025-03-06T09:00:00Z)")
        elif event.id in seen:
            add(vault.stm_path, f"event id {event.id} appears twice")
        seen.add(event.id)


def _check_links(vault: "VaultStore", path: Path, body: str, add) -> None:
    # an archived event keeps what was said word for word: a link the person wrote in it
    # ("[the setup guide](docs/setup.md)") is theirs to mean, not braniac's to resolve or repair
    said = event_id_of_file(path.name) is not None and path.is_relative_to(vault.ltm_root / "events")
    for link in prose_links(body):
        if link.is_external or not link.target:
            continue
        target = link.resolve(path)
        if said and not link.uuid and not is_event_id(link.text) and not (inside(vault.root, target) and target.exists()):
            add(path, f"link '{link.target}' in what was said opens no note (kept as said)", "warning")
        elif not inside(vault.root, target):
            add(path, f"link '{link.target}' leaves the vault")
        elif not target.exists() and _persons_wikilink(link):
            add(path, f"wikilink '[[{link.target}]]' opens no file (Obsidian would create it)", "warning")
        elif not target.exists():
            hint = f" (uuid {link.uuid})" if link.uuid else ""
            add(path, f"link '{link.target}'{hint} does not resolve")


def _persons_wikilink(link: Link) -> bool:
    """A relative wikilink braniac did not write (braniac's carry a uuid or cite an event)."""
    return link.style == WIKILINK_STYLE and not link.uuid and not is_event_id(link.text)


def _check_wikilinks(vault: "VaultStore", resolver: Resolver, path: Path, body: str, add) -> None:
    """A person's Obsidian links, resolved as Obsidian does: one that opens nothing is a warning
    (in Obsidian it is a note not written yet, made when clicked), never a problem."""
    source = vault.relative(path)
    for link in find_wikilinks(body):
        if link.target and resolver.resolve(link.target, source) is None:
            add(path, f"wikilink '[[{link.target}]]' opens no file (Obsidian would create it)", "warning")


def _check_folders(vault: "VaultStore", add, uuids: dict[str, Path]) -> None:
    if not vault.ltm_root.is_dir():
        return
    for folder, dirs, files in os.walk(vault.ltm_root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if is_memory_name(d))
        index_path = here / FOLDER_INDEX
        if not index_path.exists():
            add(here, "long-term memory folder has no _index.md (vault-format.md §7)")
            continue
        try:
            index = folder_index.read(index_path)
        except NoteError:
            continue  # already reported as a note problem
        listed = set()
        for entry in index.manifest:
            target = entry.path
            listed.add(real_path(target) if target.exists() else target)
            if entry.uuid and entry.uuid in uuids and real_path(uuids[entry.uuid]) != real_path(target) \
                    and kept_beside(target) is None:   # (a copy beside a note renamed since is listed as itself)
                add(index_path, f"manifest entry '{entry.text}' points at {vault.relative(target) if target.exists() else target.name}, "
                                f"but uuid {entry.uuid} is now {vault.relative(uuids[entry.uuid])}")
            elif not target.exists():
                add(index_path, f"manifest entry '{entry.text}' does not resolve")
        for entry in index.related:
            if not entry.path.exists():
                add(index_path, f"related memory '{entry.text}' does not resolve")
        children = [here / d / FOLDER_INDEX for d in dirs] + [
            here / f for f in files if f.endswith(".md") and f != FOLDER_INDEX and not f.startswith(".")]
        for child in children:
            if not inside(vault.root, child):
                continue  # a symlink leaving the vault: reported as a problem, never looked into
            if child.exists() and real_path(child) not in listed:
                shown = child.parent.name + "/" if child.name == FOLDER_INDEX else child.name
                add(index_path, f"'{shown}' is not in the manifest", "warning")
