"""Long-term notes and `_index.md` files merged from two machines (vault-format.md §11.2).

A line merge is tried first. When it conflicts, the note is merged by its parts: frontmatter
key by key (`updated_at` the later, `created_at` the earlier, `tags` and `sources` united),
`## Facts` claim by claim through the same rules promotion uses (a claim both sides restated
keeps every citation; one that changes a value supersedes into `## History`), `## History` and
`## Related Memories` united line by line, and every other part (the title and summary a person
wrote, sections of their own) line-merged on its own. A part both sides changed in the same
lines returns None: the file stays an ordinary git conflict for the person.

For an `_index.md` the Manifest and braniac's Related Memories are rebuilt after the merge
anyway, so ours stand in for them here.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock
from ...infra.errors import NoteError
from ...infra.textmerge import merge_texts
from ...vault import folder_index, notes
from ...vault.claims import FACTS, HISTORY, FactNote, parse_fact
from ...vault.layout import FOLDER_INDEX
from ...vault.links import find_links
from ...vault.notes import as_datetime

if TYPE_CHECKING:
    from ...vault.store import VaultStore

_UNITED = {"tags", "sources"}


class Unmergeable(Exception):
    """Both sides changed one part of the note in the same place."""


def merge_note(vault: "VaultStore", path: Path, base: str | None, ours: str, theirs: str) -> str | None:
    """The merged note (for the file at `path`), or None to leave a conflict."""
    textual = merge_texts(ours, base or "", theirs, strict=True)
    if textual is not None:
        return textual
    try:
        b = notes.parse(base, path=path) if base else None
        o, t = notes.parse(ours, path=path), notes.parse(theirs, path=path)
        result = FactNote(notes.parse(ours, path=path), path)
        _merge_meta(result.note, b.meta if b else {}, o.meta, t.meta)
        _merge_body(vault, result, b, t, index=path.name == FOLDER_INDEX)
    except (NoteError, Unmergeable):
        return None
    if "sources" in result.note.meta and path.name != FOLDER_INDEX:
        result.note.set("sources", result.sources())
    return result.render()


def _merge_meta(note: notes.Note, base: dict, ours: dict, theirs: dict) -> None:
    for key in list(dict.fromkeys([*ours, *theirs])):
        bv, ov, tv = base.get(key), ours.get(key), theirs.get(key)
        if ov == tv or tv == bv:
            continue
        if ov == bv or key not in ours:
            note.set(key, tv)
        elif key in ("updated_at", "created_at") and as_datetime(ov) and as_datetime(tv):
            pick = max if key == "updated_at" else min
            note.set(key, clock.iso(pick(as_datetime(ov), as_datetime(tv))))
        elif key in _UNITED and isinstance(ov, list) and isinstance(tv, list):
            note.set(key, list(dict.fromkeys([*ov, *tv])))
        elif key in ("uuid", "title") and not base:
            continue   # the same note made on both machines: ours names it (links follow, run.py)
        else:
            raise Unmergeable(key)


def _merge_body(vault: "VaultStore", result: FactNote, base: notes.Note | None, theirs: notes.Note, *,
                index: bool) -> None:
    ours_sections = list(result.sections)
    b = dict(folder_index.split_sections(base.body)) if base else {}
    t = folder_index.split_sections(theirs.body)
    o = dict(ours_sections)
    braniacs = result.note.meta.get("summary_by") == "braniac"
    their_facts = [line for raw in (dict(t).get(FACTS),) if raw for line in raw.split("\n")[1:]]
    for heading, raw in t:
        mine = o.get(heading)
        if mine is None:
            if heading not in b:        # a section new on their side
                _append(result, heading, raw)
            continue
        # the blank lines that close a section are layout: a section compares by its text
        gap = mine[len(mine.rstrip("\n")):] or "\n"
        if _core(raw) in (_core(mine), _core(b.get(heading))):
            continue
        if _core(mine) == _core(b.get(heading)):
            _replace(result, heading, _core(raw) + gap)
        elif heading == FACTS and not index:
            continue                    # claim by claim, below
        elif index and heading in (folder_index.MANIFEST, folder_index.SUMMARY if braniacs else None):
            continue                    # rebuilt from the folder after the merge
        elif heading in (HISTORY, folder_index.RELATED) or base is None:
            # lists both sides add to, and a note both machines made: every line of both
            united = _united(mine, raw, b.get(heading), heading is not None, by_link=heading == folder_index.RELATED)
            _replace(result, heading, _core(united) + gap)
        else:
            merged = merge_texts(_core(mine) + "\n", _core(b.get(heading)) + "\n", _core(raw) + "\n", strict=True)
            if merged is None:
                raise Unmergeable(heading or "the text above the first section")
            _replace(result, heading, _core(merged) + gap)
    if not index and o.get(FACTS) not in (None, dict(t).get(FACTS)):
        _merge_facts(vault, result, b.get(FACTS), their_facts)


def _merge_facts(vault: "VaultStore", result: FactNote, base_raw: str | None, theirs: list[str]) -> None:
    before = set(base_raw.split("\n")[1:]) if base_raw else set()
    ours = result._get(FACTS)
    gone = before - set(theirs)              # their side superseded or restated these
    result._set(FACTS, [line for line in ours if line not in gone or not parse_fact(line)])
    for line in theirs:
        if line in before or line in ours or not line.strip():
            continue
        fact = parse_fact(line)
        if fact is None:
            lines = result._get(FACTS)
            result._set(FACTS, [*lines, line])
        else:   # a day's digest is a log: its lines supersede nothing (vault-format.md §6)
            result.merge(fact, vault, log=result.path.name == "digest.md")


def _united(ours: str, theirs: str, base: str | None, headed: bool = True, by_link: bool = False) -> str:
    """A section's lines: ours, without what their side removed, then theirs that are new."""
    skip = 1 if headed else 0
    mine = ours.rstrip("\n").split("\n")
    other = theirs.rstrip("\n").split("\n")[skip:]
    before = set(base.rstrip("\n").split("\n")[skip:]) if base else set()
    kept = [line for line in mine[skip:] if not (line in before and line not in other and line.strip())]
    linked = {_target(line) for line in mine} - {None} if by_link else set()
    # one entry per linked note: their line for a note ours already lists (another weight or
    # description) is not a second entry
    added = [line for line in other if line.strip() and line not in before and line not in mine
             and (_target(line) is None or _target(line) not in linked)]
    return "\n".join([*mine[:skip], *kept, *added]) + "\n\n"


def _core(raw: str | None) -> str:
    return (raw or "").rstrip("\n")


def _append(result: FactNote, heading: str | None, raw: str) -> None:
    if result.sections and not result.sections[-1][1].endswith("\n\n"):
        name, last = result.sections[-1]
        result.sections[-1] = (name, last.rstrip("\n") + "\n\n")
    result.sections.append((heading, _core(raw) + "\n"))


def _target(line: str) -> str | None:
    """What a bullet's first link names: its uuid, else its path as written."""
    found = find_links(line) if line.lstrip().startswith(("- ", "* ")) else []
    return (found[0].uuid or found[0].target) if found else None


def _replace(result: FactNote, heading: str | None, raw: str) -> None:
    for i, (name, _) in enumerate(result.sections):
        if name == heading:
            result.sections[i] = (name, raw)
            return

