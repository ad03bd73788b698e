"""Three-way merge of two texts that changed from one base, line by line, in memory (the
`merge3` library: no temporary files, no git needed, so it works in a vault without git and
never writes outside the vault)."""
from __future__ import annotations


def merge_texts(current: str, base: str, other: str, *, strict: bool = False) -> str | None:
    """The changes from `base` to `other` applied to `current`, or None when the two changed the
    same lines differently (never a text with conflict markers). Lines both sides added at
    the same place (a person appending to a note's end at two places) are both kept, those of
    `current` first: neither is a change of the other's lines (with `strict`, that too is
    None: sync then merges by the file's structure, which orders them)."""
    import merge3   # (here: only a move, an undo or a sync that meets concurrent edits needs it)
    merger = merge3.Merge3(base.splitlines(keepends=True), current.splitlines(keepends=True),
                           other.splitlines(keepends=True))
    merged: list[str] = []
    for group in merger.merge_groups():
        if group[0] == "conflict":
            _, base_lines, ours, theirs = group
            if strict:
                return None
            if not base_lines:
                merged.extend(ours + [line for line in theirs if line not in ours])
                continue
            settled = _settled(base_lines, ours, theirs)
            if settled is None:
                return None
            merged.extend(settled)
            continue
        merged.extend(group[1])
    return "".join(merged)


def _settled(base: list[str], ours: list[str], theirs: list[str]) -> list[str] | None:
    """Lines changed on both sides that are no real conflict: both made the same change and one
    of them added lines before or after it (a moved note's link, re-aimed in its copy and in its
    old place, where a person then added a paragraph), or one side only added lines next to
    what the other changed. None otherwise (and when a side deleted them: never undone here)."""
    if not ours or not theirs:
        return None
    for one, other in ((ours, theirs), (theirs, ours)):
        if other[:len(one)] == one or other[len(other) - len(one):] == one:
            return other
    n = len(base)
    for one, other in ((theirs, ours), (ours, theirs)):
        if one[:n] == base:
            return other + one[n:]
        if one[len(one) - n:] == base:
            return one[:len(one) - n] + other
    return None
