"""Obsidian's own links, `[[Note]]`, `[[Note|alias]]`, `[[folder/Note#Heading]]`, `![[embed]]`,
read and resolved the way Obsidian resolves them (vault-format.md §8.2).

Obsidian takes the link's path (the part before `#`, `^` or `|`), without `.md` for a note,
and finds the vault's file whose path ends with it, compared case-insensitively: `[[Pancakes]]`
is any `Pancakes.md`, `[[recipes/Pancakes]]` any `…/recipes/Pancakes.md`. When several files
match, the one in the linking file's own folder wins, then the shortest path. A path that starts
with `./` or `../` is relative to the linking file. Links inside code are not links.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterable

from ..infra.markdown_prose import code_and_comments

WIKILINK = re.compile(r"(?P<embed>!?)\[\[(?P<target>[^\[\]|#^\n]*)(?P<anchor>[#^][^\[\]|\n]*)?"
                      r"(?:\|(?P<alias>[^\[\]\n]*))?\]\]")


@dataclass(frozen=True)
class WikiLink:
    target: str           # as written, e.g. 'recipes/Pancakes' ('' for a link to a heading of this note)
    anchor: str = ""      # '#Heading' or '^block', as written
    alias: str | None = None
    embed: bool = False
    start: int = 0
    end: int = 0
    pipe: str = "|"       # '\|' in a Markdown table, where a bare '|' would end the cell

    @property
    def text(self) -> str:
        """What Obsidian shows: the alias, else the target's name."""
        return self.alias if self.alias is not None else PurePosixPath(self.target).name or self.anchor.lstrip("#^")


def find_wikilinks(text: str) -> list[WikiLink]:
    """Every wikilink of `text` that names a note the way Obsidian resolves names, outside code
    and comments (one whose path starts with `./` or `../` is a path link, §8: `links.find_links`)."""
    code = code_and_comments(text)
    found = []
    for m in WIKILINK.finditer(text):
        if any(a <= m.start() < b for a, b in code):
            continue
        if not m["embed"] and m["target"].strip().startswith(("./", "../")):
            continue   # an explicit relative path: a path link, read by `links.find_links`
        target, anchor, pipe = m["target"].strip(), (m["anchor"] or "").strip(), "|"
        if m["alias"] is not None and (anchor or target).endswith("\\"):   # `[[x\|y]]` in a table
            pipe = "\\|"
            if anchor:
                anchor = anchor[:-1]
            else:
                target = target[:-1]
        found.append(WikiLink(target, anchor, m["alias"], bool(m["embed"]), m.start(), m.end(), pipe))
    return found


def _key(path: str) -> str:
    return path.casefold()


class Resolver:
    """Obsidian's link resolution over a set of vault-relative file paths (posix)."""

    def __init__(self, files: Iterable[str]):
        self.files = sorted(set(files))
        self._by_name: dict[str, list[str]] = {}
        for rel in self.files:
            self._by_name.setdefault(_key(PurePosixPath(rel).name), []).append(rel)

    @classmethod
    def of_vault(cls, root: Path) -> "Resolver":
        """Every file Obsidian sees in the vault (folders and files starting with '.' are not)."""
        found = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            rel = Path(folder).relative_to(root)
            found += [(rel / n).as_posix() for n in names if not n.startswith(".")]
        return cls(found)

    def candidates(self, target: str) -> list[str]:
        """Every file `target` (a link's path part, no '#') could name, in no order."""
        target = target.strip().strip("/")
        if not target:
            return []
        names = [target] if PurePosixPath(target).suffix.lower() not in ("", ".md") and \
            _key(PurePosixPath(target).name) in self._by_name else [target + ".md", target]
        found = []
        for name in names:
            wanted = _key(name)
            for rel in self._by_name.get(_key(PurePosixPath(name).name), ()):
                key = _key(rel)
                if key == wanted or key.endswith("/" + wanted):
                    found.append(rel)
            if found:
                break
        return found

    def resolve(self, target: str, source: str) -> str | None:
        """The vault-relative file a link written in `source` (vault-relative) opens, or None."""
        target = target.strip()
        if target.startswith(("./", "../")):
            joined = os.path.normpath(os.path.join(str(PurePosixPath(source).parent), target)).replace(os.sep, "/")
            return self.resolve(joined, "") if not joined.startswith("..") else None
        found = self.candidates(target)
        if not found:
            return None
        here = str(PurePosixPath(source).parent)
        return min(found, key=lambda rel: (str(PurePosixPath(rel).parent) != here, len(rel), rel))

    def shortest_target(self, rel: str, source: str) -> str:
        """The shortest link text that opens `rel` from `source`, as Obsidian writes one: the
        name alone when that is enough, else as many folders before it as it takes (no `.md`
        for a note)."""
        path = PurePosixPath(rel)
        stem = str(path.with_suffix("")) if path.suffix.lower() == ".md" else str(path)
        parts = stem.split("/")
        for n in range(1, len(parts) + 1):
            candidate = "/".join(parts[-n:])
            if self.resolve(candidate, source) == rel:
                return candidate
        return stem

    def add(self, rel: str) -> None:
        if rel not in self.files:
            self.files.append(rel)
            self._by_name.setdefault(_key(PurePosixPath(rel).name), []).append(rel)

    def remove(self, rel: str) -> None:
        if rel in self.files:
            self.files.remove(rel)
            self._by_name[_key(PurePosixPath(rel).name)].remove(rel)


def render(target: str, *, anchor: str = "", alias: str | None = None, embed: bool = False, pipe: str = "|") -> str:
    """A wikilink as text."""
    alias_part = f"{pipe}{alias}" if alias is not None else ""
    return f"{'!' if embed else ''}[[{target}{anchor}{alias_part}]]"


def retarget(link: WikiLink, target: str) -> str:
    """`link` written again to open `target`, everything else kept."""
    return render(target, anchor=link.anchor, alias=link.alias, embed=link.embed, pipe=link.pipe)
