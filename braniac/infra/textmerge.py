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
            if base_lines or strict:
                return None
            merged.extend(ours + [line for line in theirs if line not in ours])
            continue
        merged.extend(group[1])
    return "".join(merged)
