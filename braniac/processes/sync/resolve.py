"""The files a merge left in conflict, resolved the way each kind of file merges
(vault-format.md §11.2); what no rule covers stays an ordinary git conflict for the person.

- `memory/short_term.md`: events and list items (`stm_merge`).
- notes and `_index.md` under `memory/long_term/`: part by part (`note_merge`); a note one side
  moved (organization) and the other edited follows its uuid to the new place.
- `logs/*.log`: every line of both sides, less what either side rotated away.
- files in a tool's hidden folder (`.obsidian/`): this machine's version (window layout, not memory).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import git
from ...infra.errors import NoteError
from ...infra.fsio import atomic_write, kept_beside, read_text, update_text
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


def resolve_conflicts(vault: "VaultStore") -> Resolution:
    out = Resolution()
    uuid_paths: dict[str, list[str]] | None = None
    for rel in sorted(git.unmerged(vault.root)):
        texts = {s: git.stage_text(vault.root, s, rel) for s in (1, 2, 3)}
        base, ours, theirs = texts[1], texts[2], texts[3]
        merged: str | None = None
        if ours is not None and theirs is not None:
            merged = _merged(vault, rel, base, ours, theirs)
            if merged is not None and rel.endswith(".md"):
                mine, other = _uuid_of(ours), _uuid_of(theirs)
                if base is None and mine and other and mine != other:
                    out.aliases[other] = mine
        elif base is not None and _is_note(rel):
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
    git.run(vault.root, "rm", "-q", "--cached", "--ignore-unmatch", "--", rel)
    (vault.root / rel).unlink(missing_ok=True)
    for folder in (vault.root / rel).parents:   # as git leaves no folder a move emptied
        if folder == vault.ltm_root or not folder.is_relative_to(vault.ltm_root):
            break
        try:
            folder.rmdir()
        except OSError:
            break
    git.run(vault.root, "add", "--", moved[0])
    return True


def relink_aliases(vault: "VaultStore", aliases: dict[str, str]) -> None:
    """Links to the second copy of a note made on both machines now name the one kept."""
    args = [a for uuid in aliases for a in ("-e", uuid)]
    found = git.run(vault.root, "grep", "-l", "-z", "-F", *args, "--", "memory", "system", check=False).stdout
    kept = set(aliases.values())
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
        update_text(vault.root / rel, swap)

