"""Obsidian wikilinks kept working when braniac moves notes (vault-format.md §8.2).

A wikilink names a note by the end of its path, so most moves need no rewrite at all:
`[[Pancakes]]` still opens `Pancakes.md` wherever it went. A link is rewritten only where
Obsidian itself would now open another file or none (the name became ambiguous, a folder in
the link no longer matches, a relative path from a note that moved), and then with the
shortest target that opens the moved note, as Obsidian writes one.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .wikilinks import Resolver, find_wikilinks, retarget

if TYPE_CHECKING:
    from .store import VaultStore


class WikiRepair:
    """The vault's files before and after a set of moves, to tell which wikilinks need a rewrite."""

    def __init__(self, vault: "VaultStore", mapping: dict[Path, Path]):
        self.vault = vault
        self.mapping = {vault.relative(old): vault.relative(new) for old, new in mapping.items()}
        self.before = Resolver.of_vault(vault.root)
        self.after = Resolver(self.before.files)
        for old, new in self.mapping.items():
            self.before.add(old)
            self.before.remove(new)
            self.after.remove(old)
            self.after.add(new)

    def relinked(self, text: str, was_at: Path, now_at: Path | None = None) -> str:
        """`text` of the file that was at `was_at` (and is at `now_at`, if it moves), each of its
        wikilinks rewritten only if it would no longer open what it opened before the moves."""
        if "[[" not in text:
            return text
        source_before = self.vault.relative(was_at)
        source_after = self.vault.relative(now_at) if now_at is not None else source_before
        out, last = [], 0
        for link in find_wikilinks(text):
            if not link.target:
                continue
            opened = self.before.resolve(link.target, source_before)
            if opened is None:
                continue   # a note not written yet stays a note not written yet
            wanted = self.mapping.get(opened, opened)
            if self.after.resolve(link.target, source_after) == wanted:
                continue
            out += [text[last:link.start], retarget(link, self.after.shortest_target(wanted, source_after))]
            last = link.end
        out.append(text[last:])
        return "".join(out)
