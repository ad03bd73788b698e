"""The files a merge left in conflict, resolved the way each kind of file merges
(vault-format.md §11.2); what no rule covers stays an ordinary git conflict for the person.

- `memory/short_term.md`: events and list items (`stm_merge`).
- notes and `_index.md` under `memory/long_term/`: part by part (`note_merge`); a note one side
  moved (organization) and the other edited follows its uuid to the new place.
- `logs/*.log`: every line of both sides, less what either side rotated away.
- files in a tool's hidden folder (`.obsidian/`): this machine's version (window layout, not memory).
- a note renamed differently on the two machines: one note, under this machine's name, with both
  machines' changes (links to the other name are re-aimed by uuid in `repair`).

Every rule reads git's stages, never the file git wrote, so running it again on what a killed sync
left gives what the uninterrupted sync would have.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import git
from ...infra.errors import NoteError
from ...infra.fsio import atomic_write, kept_beside, read_text, remove_file, update_text
from ...vault.layout import LOGS, LONG_TERM, SHORT_TERM
from ...vault.links import find_links, replace_uuid
from .note_merge import merge_note
from .stm_merge import merge_short_term

if TYPE_CHECKING:
    from ...vault.store import VaultStore

_UUID = re.compile(r"^uuid:[ \t]*['\"]?([^'\"\s]+)", re.MULTILINE)


@dataclass
class Resolution:
    resolved: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)     # their uuid -> ours, one note made twice
    renamed: list[str] = field(default_factory=list)          # "theirs -> ours": one note renamed twice
    held: set[str] = field(default_factory=set)               # a note still under two names: a conflict


def resolve_conflicts(vault: "VaultStore") -> Resolution:
    out = Resolution()
    uuid_paths: dict[str, list[str]] | None = None
    unmerged = git.unmerged(vault.root)
    handled: set[str] = set()
    for pair in _renamed_twice(vault.root, unmerged):
        handled |= set(pair)
        old, mine, other = pair
        kept = _marked_name(vault.root, mine, other)
        if kept:
            out.conflicts.append(kept)      # one name kept, git's markers still in it
            continue
        if _merge_renamed(vault, old, mine, other):
            out.resolved.append(mine)
            out.renamed.append(f"{other} -> {mine}")
        else:
            out.conflicts += [mine, other]
            out.held |= {mine, other}
    for rel in sorted(set(unmerged) - handled):
        texts = {s: git.stage_text(vault.root, s, rel) for s in (1, 2, 3)}
        base, ours, theirs = texts[1], texts[2], texts[3]
        merged: str | None = None
        if ours is not None and theirs is not None:
            merged = _merged(vault, rel, base, ours, theirs)
            if merged is not None and rel.endswith(".md"):
                mine, other = _uuid_of(ours), _uuid_of(theirs)
                if base is None and mine and other and mine != other:
                    out.aliases[other] = mine
        elif base is not None and _is_note(rel) and (ours is not None or theirs is not None):
            if uuid_paths is None:
                uuid_paths = _uuid_paths(vault)
            if _follow(vault, rel, base, ours if ours is not None else theirs, uuid_paths):
                out.resolved.append(rel)
                continue
            merged = ours if ours is not None else theirs      # deleted on one side only: kept
        elif base is not None and (rel == SHORT_TERM or _is_log(rel)):
            merged = ours if ours is not None else theirs      # deleted on one side only: kept
        if merged is None:
            out.conflicts.append(rel)
            continue
        atomic_write(vault.root / rel, merged)
        git.run(vault.root, "add", "--", rel)
        out.resolved.append(rel)
    if out.aliases:
        relink_aliases(vault, out.aliases)
    return out


def _merged(vault: "VaultStore", rel: str, base: str | None, ours: str, theirs: str) -> str | None:
    if rel.startswith(".") and "/" in rel:
        return ours    # an editor's own state (`.obsidian/workspace.json`), never memory: this machine's
    if rel == SHORT_TERM:
        return merge_short_term(base, ours, theirs)
    if _is_log(rel):
        return union_lines(base or "", ours, theirs)
    if _is_note(rel):
        return merge_note(vault, vault.root / rel, base, ours, theirs)
    return None


def _is_note(rel: str) -> bool:
    return rel.startswith(LONG_TERM + "/") and rel.endswith(".md")


def _is_log(rel: str) -> bool:
    return rel.startswith(LOGS + "/") and rel.endswith(".log")


def union_lines(base: str, ours: str, theirs: str) -> str:
    """Both sides' lines; a base line either side dropped (a rotation moved it) goes."""
    before, mine, other = set(base.splitlines()), ours.splitlines(), theirs.splitlines()
    kept = [line for line in mine if line not in before or line in set(other)]
    seen = set(mine)
    added = [line for line in other if line not in before and line not in seen]
    text = "\n".join(kept + added)
    return text + "\n" if text else ""


def _uuid_of(text: str | None) -> str | None:
    match = _UUID.search(text or "")
    return match.group(1) if match else None


def _uuid_paths(vault: "VaultStore") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in vault.iter_ltm_files():
        try:
            head = read_text(path)[:2000]
        except NoteError:
            continue
        uuid = _uuid_of(head)
        if uuid:
            found.setdefault(uuid, []).append(vault.relative(path))
    return found


def _follow(vault: "VaultStore", rel: str, base: str, edited: str, uuid_paths: dict[str, list[str]]) -> bool:
    """A note moved on one side and edited on the other: the edit goes to where it moved."""
    uuid = _uuid_of(edited) or _uuid_of(base)
    # (a conflict copy kept beside a note carries its uuid, but the note is where the edit goes)
    moved = [p for p in uuid_paths.get(uuid or "", []) if p != rel and kept_beside(Path(p)) is None]
    if not moved:
        return False
    target = vault.root / moved[0]
    current = read_text(target)
    merged = merge_note(vault, target, base, current, edited)
    if merged is None:
        return False
    atomic_write(target, merged)
    if (vault.root / rel).exists():
        remove_file(vault.root / rel)
    for folder in (vault.root / rel).parents:   # as git leaves no folder a move emptied
        if folder == vault.ltm_root or not folder.is_relative_to(vault.ltm_root):
            break
        try:
            folder.rmdir()
        except OSError:
            break
    # one git call stages both: a sync killed before it finds the conflict as git left it
    git.run(vault.root, "add", "-A", "--", rel, moved[0])
    return True


def _renamed_twice(root: Path, unmerged: dict[str, set[int]]) -> list[tuple[str, str, str]]:
    """(old name, our new name, their new name) of each note the two machines renamed differently:
    git leaves the old name with its base only and each new name with one side only."""
    def named(stage: int, commit: str) -> dict[str, str]:
        rels = [rel for rel, stages in unmerged.items() if stages == {stage} and _is_note(rel)]
        return {u: rel for rel in rels if (u := _uuid_of(_side(root, stage, commit, rel)))}
    olds, mine, other = named(1, ""), named(2, "HEAD"), named(3, "MERGE_HEAD")
    return [(old, mine[u], other[u]) for u, old in sorted(olds.items()) if u in mine and u in other]


def _side(root: Path, stage: int, commit: str, rel: str) -> str | None:
    # git's stages 2 and 3 of a note renamed twice both hold its own line merge (markers and
    # all): each side's text is the one its commit holds
    return git.show(root, commit, rel) if commit else git.stage_text(root, stage, rel)


def _marked_name(root: Path, mine: str, other: str) -> str | None:
    """The one name the person kept of a note renamed twice, while it still holds git's markers
    (its text is git's line merge of both sides): no name goes until they are taken out."""
    kept = [rel for rel in (mine, other) if (root / rel).exists()]
    if len(kept) != 1:
        return None
    try:
        return kept[0] if git.marker_line(read_text(root / kept[0])) else None
    except NoteError:
        return None


def _merge_renamed(vault: "VaultStore", old: str, mine: str, other: str) -> bool:
    """One note under our name with both sides' changes; False (both names left for the person)
    when both changed the same lines. A name the person (or a killed sync) already removed tells
    which one stays."""
    root = vault.root
    here, there = root / mine, root / other
    if here.exists() and there.exists():
        base, ours, theirs = (_side(root, *where) for where in ((1, "", old), (2, "HEAD", mine), (3, "MERGE_HEAD", other)))
        merged = merge_note(vault, here, base, ours or "", theirs or "")
        if merged is None:
            return False
        atomic_write(here, merged)
        remove_file(there)
    git.run(root, "add", "-A", "--", old, mine, other)
    return True


def made_on_both(vault: "VaultStore", base: str, ours: str, theirs: str) -> dict[str, str]:
    """Notes made on both machines under one path, now one file: the uuid it does not carry ->
    the one it does. For a merge finished by a later sync (a person's resolution, or a sync killed
    after it merged the note and before it re-aimed the links)."""
    root = vault.root

    def added(side: str) -> set[str]:
        out = git.run(root, "diff", "--no-renames", "--name-only", "-z", "--diff-filter=A", base, side,
                      "--", LONG_TERM, check=False).stdout
        return {rel for rel in out.split("\0") if _is_note(rel)}
    aliases: dict[str, str] = {}
    for rel in sorted(added(ours) & added(theirs)):
        try:
            kept = _uuid_of(read_text(root / rel)[:2000])
        except (OSError, NoteError):
            continue
        for side in (ours, theirs):
            uuid = _uuid_of(git.show(root, side, rel))
            if kept and uuid and uuid != kept:
                aliases[uuid] = kept
    return aliases


def relink_aliases(vault: "VaultStore", aliases: dict[str, str]) -> list[str]:
    """Links to the second copy of a note made on both machines now name the one kept; the files
    rewritten (staged: part of the merge)."""
    args = [a for uuid in aliases for a in ("-e", uuid)]
    found = git.run(vault.root, "grep", "-l", "-z", "-F", *args, "--", "memory", "system", check=False).stdout
    kept = set(aliases.values())
    written: dict[Path, os.stat_result] = {}
    for rel in filter(None, found.split("\0")):
        def swap(text: str) -> str:
            for old, new in aliases.items():
                text = replace_uuid(text, old, new)
            # two links that now name one note (each machine had listed its own copy): one stays
            seen: set[str] = set()
            lines = []
            for line in text.split("\n"):
                if line.startswith(("- ", "* ")) and any(link.uuid in kept for link in find_links(line)):
                    if line in seen:
                        continue
                    seen.add(line)
                lines.append(line)
            return "\n".join(lines)
        update_text(vault.root / rel, swap, versions=written)
    waiting = git.unmerged(vault.root)      # a file left for the person stays in conflict
    rels = sorted(r for r in map(vault.relative, written) if r not in waiting)
    if rels:
        git.run(vault.root, "add", "--", *rels)
    return rels

