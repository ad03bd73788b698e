"""Taking one run's change to one file back out of the file as it is now, whatever came after
the run: a three-way merge where the run's result is the base and the file before the run is the
other side. Nothing here writes.

Memory files are lists of lines (claims, digest lines, links), and later runs add lines right
beside the ones a run added, which a strict merge calls a conflict. So where the strict merge
finds one, the take-back is done line by line: each line the run added goes if it is still
there word for word, each line it removed comes back beside its old neighbours, and a line
changed since (a claim a later run strengthened) stays as it is and is counted as left over."""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from ...infra.textmerge import merge_texts
from ...infra.errors import NoteError
from ...vault import notes

_MISSING, _CONFLICT = object(), object()
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s|^\s*\|")   # a list item or a table row


@dataclass
class TakenBack:
    text: str
    left_over: int = 0    # lines of the run changed since, so left as they are


def take_back(current: str, after: str, before: str | None) -> TakenBack | None:
    """`current` without the change the run made (`before` -> `after`; `before` None for a file
    the run created); None when nothing sensible can be done (the caller leaves the file)."""
    if current == after:
        return TakenBack(before or "")
    if after == (before or "") or current == before:
        return TakenBack(current)
    if current.startswith("---") or after.startswith("---"):
        return _take_back_note(current, after, before)
    return _take_back_text(current, after, before)


def _take_back_text(current: str, after: str, before: str | None) -> TakenBack:
    if before is not None:
        strict = merge_texts(current, after, before)
        if strict is not None:
            return TakenBack(strict)
    return _line_by_line(current, after, before)


def _line_by_line(current: str, after: str, before: str | None) -> TakenBack:
    cur, aft = current.splitlines(keepends=True), after.splitlines(keepends=True)
    bef = before.splitlines(keepends=True) if before is not None else []
    # where each line of `after` is in `current` now (None: changed or gone since)
    where: dict[int, int] = {}
    for block in SequenceMatcher(None, aft, cur, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            where[block.a + k] = block.b + k
    drop: set[int] = set()
    insert_after: dict[int, list[str]] = {}   # position in `current` (-1: the top) -> lines
    left_over = 0
    for tag, a1, a2, b1, b2 in SequenceMatcher(None, aft, bef, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        added = range(a1, a2)
        if before is None:
            # a file the run created: its structure (frontmatter, headings, prose) stays for the
            # lines later runs added under it; its own items go
            added = [i for i in added if _ITEM.match(aft[i])]
        gone = [i for i in added if i not in where]
        left_over += len(gone)
        drop |= {where[i] for i in added if i in where}
        if b2 > b1 and not gone:
            anchor = next((where[i] for i in range(a1 - 1, -1, -1) if i in where), -1)
            insert_after.setdefault(anchor, []).extend(bef[b1:b2])
    out = list(insert_after.get(-1, []))
    for i, line in enumerate(cur):
        if i not in drop:
            out.append(line)
        out.extend(insert_after.get(i, []))
    return TakenBack("".join(out), left_over)


def _take_back_note(current: str, after: str, before: str | None) -> TakenBack | None:
    """A note: its frontmatter key by key (a later run's `updated_at` on the next line is no
    conflict), its body as text."""
    try:
        now, base = notes.parse(current), notes.parse(after)
        other = notes.parse(before) if before is not None else None
    except NoteError:
        return _take_back_text(current, after, before)
    body = _take_back_text(now.body, base.body, other.body if other is not None else None)
    now.body = body.text
    for key in list(dict.fromkeys([*now.meta, *(other.meta if other else {})])):
        undone = other.meta.get(key, _MISSING) if other else _MISSING
        value = _merge_value(now.meta.get(key, _MISSING), base.meta.get(key, _MISSING), undone, key)
        if value is _CONFLICT:
            body.left_over += 1
        elif value is not _MISSING and value != now.meta.get(key, _MISSING):
            now.set(key, value)
    return TakenBack(now.render(), body.left_over)


def _merge_value(current: Any, base: Any, other: Any, key: str) -> Any:
    if key == "sources" and isinstance(base, list) and other is _MISSING:
        other = []   # provenance the run started: its events leave it (what later runs cite stays)
    if current == base:
        return other if other is not _MISSING else current  # a key the run added stays (harmless)
    if other == base:
        return current
    if isinstance(current, list) and isinstance(base, list) and isinstance(other, list):
        added, removed = [x for x in base if x not in other], [x for x in other if x not in base]
        return [x for x in current if x not in added] + [x for x in removed if x not in current]
    if key in ("updated_at", "created_at"):
        return current
    return _CONFLICT
