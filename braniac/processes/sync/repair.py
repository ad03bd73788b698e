"""What a merge requires afterwards (vault-format.md §11.2): links re-aimed from their uuids
(a note moved on one machine, linked on the other), every `_index.md` of a folder either side
changed rebuilt from what the folder now holds, and uuids held by two files named."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ...infra import git
from ...infra.errors import NoteError
from ...infra.fsio import kept_beside, read_text
from ...vault.folders import refresh_indexes
from ...vault.layout import FOLDER_INDEX
from ...vault.links import find_links
from ...vault.moves import repair_links

if TYPE_CHECKING:
    from ...vault.store import VaultStore

_UUID = re.compile(r"\A---[ \t]*\r?\n(?:.*\n)*?uuid:[ \t]*['\"]?([^'\"\s]+)", re.MULTILINE)


def uuid_paths(vault: "VaultStore", uuids: set[str]) -> dict[str, list[Path]]:
    """uuid -> every memory file whose frontmatter carries it, for these uuids only: `git grep`
    finds the candidates, so a merge into a vault of 10,000 notes reads a handful of them."""
    found: dict[str, list[Path]] = {}
    if not uuids:
        return found
    args = [a for uuid in sorted(uuids) for a in ("-e", uuid)]
    listing = git.run(vault.root, "grep", "-l", "-z", "-F", *args, "--", "memory", "system", check=False).stdout
    for rel in filter(None, listing.split("\0")):
        path = vault.root / rel
        uuid = _uuid_of(path)
        if uuid in uuids:
            found.setdefault(uuid, []).append(path)
    for paths in found.values():   # a note before the conflict copies kept beside it
        paths.sort(key=lambda p: kept_beside(p) is not None)
    return found


def _uuid_of(path: Path) -> str | None:
    try:
        match = _UUID.match(read_text(path)[:4000])
    except (NoteError, OSError):
        return None
    return match.group(1) if match else None


def after_merge(vault: "VaultStore", changed: Iterable[str]) -> tuple[set[Path], list[str]]:
    """Repair what the merge of `changed` (vault-relative paths either side changed) needs; the
    files written, and a line per uuid two files share."""
    written: set[Path] = set()
    paths = {vault.root / rel for rel in changed}
    notes_changed = sorted(p for p in paths if p.suffix == ".md" and p.exists())
    wanted = {u for u in map(_uuid_of, notes_changed) if u}
    for path in notes_changed:   # links that lead nowhere now: their uuids say where to
        try:
            text = read_text(path)
        except NoteError:
            continue
        wanted |= {link.uuid for link in find_links(text) if link.uuid and not link.is_external
                   and not link.resolve(path).exists()}
    by_uuid_all = uuid_paths(vault, wanted)
    by_uuid = {uuid: found[0] for uuid, found in by_uuid_all.items()}
    repair_links(vault, {}, by_uuid, written, files=notes_changed)
    folders = {p.parent for p in paths if p.is_relative_to(vault.ltm_root)}
    folders = {f if f.is_dir() else _existing_parent(f) for f in folders}
    refresh_indexes(vault, sorted(f for f in folders if f is not None), written)
    duplicates = [f"uuid {uuid}: " + ", ".join(vault.relative(p) for p in found)
                  for uuid, found in sorted(by_uuid_all.items())
                  if sum(kept_beside(p) is None for p in found) > 1 and not all(p.name == FOLDER_INDEX for p in found)]
    return written, duplicates


def _existing_parent(folder: Path) -> Path | None:
    for up in (folder, *folder.parents):
        if up.is_dir():
            return up
    return None
