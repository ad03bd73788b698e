"""Co-access links: the Related Memories lines that organization owns.

Organization links notes that are read together and describes each such line as
`co-accessed, weight 0.62 (renewed 2024-05-01)`. The marker tells its lines from a person's
(which it never prunes); the weight and the renewal date let a later run decay the link.
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from ..infra import clock
from ..infra.errors import NoteError
from ..infra.fsio import inside, read_text
from . import notes
from .folder_index import related_entries, split_sections
from .layout import FOLDER_INDEX, RESTRUCTURED_TIERS

if TYPE_CHECKING:
    from .store import VaultStore

CO_ACCESSED = "co-accessed"
_WEIGHT = re.compile(rf"{CO_ACCESSED}, weight ([0-9.]+)(?: \(renewed (\d{{4}}-\d{{2}}-\d{{2}})\))?")


def description(weight: float, renewed: datetime) -> str:
    return f"{CO_ACCESSED}, weight {weight:.2f} (renewed {renewed:%Y-%m-%d})"


def weight_of(description_text: str) -> float:
    """A co-access line's weight; 1 for any other link (a person's, promotion's)."""
    match = _WEIGHT.search(description_text)
    return float(match.group(1)) if match else 1.0


def existing_links(vault: "VaultStore") -> dict[tuple[str, str], tuple[float, datetime | None]]:
    """The co-access links organization made earlier, by sorted pair of vault-relative paths:
    (weight, date last renewed)."""
    found: dict[tuple[str, str], tuple[float, datetime | None]] = {}
    for tier in RESTRUCTURED_TIERS:
        root = vault.ltm_root / tier
        for path in root.rglob("*.md") if root.is_dir() else ():
            if path.name == FOLDER_INDEX or not inside(vault.root, path):
                continue
            try:
                text = read_text(path)
            except NoteError:
                continue
            if CO_ACCESSED not in text:
                continue
            sections = split_sections(notes.parse(text, path=path).body)
            for entry in related_entries(sections, path):
                match = _WEIGHT.search(entry.description)
                if match and entry.path.exists():
                    pair = tuple(sorted((vault.relative(path), vault.relative(entry.path))))
                    renewed = clock.parse_iso(match.group(2)) if match.group(2) else None
                    if pair not in found or float(match.group(1)) > found[pair][0]:
                        found[pair] = (float(match.group(1)), renewed)
    return found


def linked_both_ways(vault: "VaultStore", a: str, b: str) -> bool:
    """Whether each of two notes (vault-relative) already links the other in its Related
    Memories with a link that is no co-access link (a person's, promotion's): a co-access link
    between them would change neither note."""
    return _links_to(vault, a, b) and _links_to(vault, b, a)


def _links_to(vault: "VaultStore", source_rel: str, target_rel: str) -> bool:
    source, target = vault.root / source_rel, vault.root / target_rel
    try:
        text = read_text(source)
    except NoteError:
        return False
    entries = related_entries(split_sections(notes.body_of(text)), source)
    return any(e.path == target and CO_ACCESSED not in e.description for e in entries)
