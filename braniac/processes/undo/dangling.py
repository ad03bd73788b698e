"""Links to the files an undo removed (the archived copies of events that are back in short-term
memory, notes only the undone run had made) taken out of every file that still has them, so
every link in the vault resolves afterwards. Only braniac's own lines go whole: a line the person
wrote or changed keeps its words, whatever it cited."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra.errors import LockBusy, NoteError
from ...infra.notices import notice
from ...infra.fsio import read_settled, update_text
from ...vault.links import ANY_LINK, find_links

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def drop_links_to(vault: "VaultStore", gone: set[Path], written: set[Path], braniacs: set[str]) -> None:
    """`braniacs`: the lines braniac's runs wrote (runs.lines_written), the only ones that may go whole."""
    for path in citing(vault, gone):
        try:
            update_text(path, lambda t, p=path: without_links_to(t, p, gone, braniacs))
            written.add(path)
        except NoteError:
            continue
        except LockBusy as exc:   # held open for writing all along: the undo goes on, its link left
            notice(f"a link to an undone note is left in place ({exc}); `braniac doctor` lists it")


def citing(vault: "VaultStore", gone: set[Path]) -> list[Path]:
    """The files with a link to one of `gone` (and those held open for writing, which may have)."""
    found = []
    for path in vault.iter_markdown() if gone else ():
        try:
            text, _read_at = read_settled(path)   # (an editor mid-save has not written its links back yet)
        except NoteError:
            continue
        except LockBusy:
            found.append(path)
            continue
        if any(not link.is_external and link.resolve(path) in gone for link in find_links(text)):
            found.append(path)
    return found


def without_links_to(text: str, from_file: Path, gone: set[Path], braniacs: set[str]) -> str:
    """A citation (a link in a `(…, …)` list of links) goes whole, and a claim of braniac's left
    citing nothing goes with it (one the person wrote or changed keeps its words); a list item
    that was only the link goes; a link inside a sentence keeps its words."""
    out = []
    for line in text.splitlines(keepends=True):
        links = find_links(line)
        dead = [k for k in links if not k.is_external and k.resolve(from_file) in gone]
        if not dead:
            out.append(line)
            continue
        if _item_is_the_link(line, dead[0]):
            continue
        cited = [k for k in links if _in_citation(line, k)]
        if cited and all(k in dead for k in cited) and _LIST_ITEM.match(line) and line.rstrip("\r\n") in braniacs:
            continue   # a claim braniac wrote whose every source went away
        kept, last = [], 0
        for link in dead:
            kept.append(line[last:link.start])
            if not _in_citation(line, link):
                kept.append(link.text)
            last = link.end
        kept.append(line[last:])
        new = "".join(kept)
        for pattern, repl in ((r"\(\s*[,;]\s*", "("), (r"\s*[,;]\s*\)", ")"), (r"([,;])\s*[,;]", r"\1"), (r"\s*\(\s*\)", "")):
            new = re.sub(pattern, repl, new)
        out.append(new)
    return "".join(out)


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _in_citation(line: str, link) -> bool:
    """Whether a link sits in a parenthesized list of links, as braniac cites its sources."""
    left = re.sub(rf"{ANY_LINK}|[\s,;]", "", line[:link.start])
    right = re.sub(rf"{ANY_LINK}|[\s,;]", "", line[link.end:])
    return left.endswith("(") and right.startswith(")")


def _item_is_the_link(line: str, link) -> bool:
    """A list item whose first words are the link (a Related Memories entry, a manifest line)."""
    stripped = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s*", "", line)
    return stripped != line and stripped.startswith(line[link.start:link.end])
