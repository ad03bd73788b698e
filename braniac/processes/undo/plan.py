"""What undoing one run does to each file it changed, decided before anything is written."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import git
from ...infra.errors import NoteError
from ...infra.fsio import read_text
from .merge import take_back
from ...vault.layout import FOLDER_INDEX, event_id_of_file, event_rel
from ..sync.renumber import replaced
from .runs import PROMOTION, WorkerRun

if TYPE_CHECKING:
    from ...vault.store import VaultStore

WRITE, CREATE, REMOVE, MOVE_BACK, KEEP = "write", "create", "remove", "move back", "keep"
SKIP = "skip"   # nothing of the run is left in this file to take back


@dataclass
class Action:
    kind: str
    path: Path                       # the file as it will be (for MOVE_BACK: its old place)
    text: str | None = None
    moved_from: Path | None = None   # MOVE_BACK: where the run had put it
    reason: str = ""                 # KEEP: why it stays as it is
    seen: os.stat_result | None = field(default=None, repr=False)  # the stat the decision read


def changes(vault: "VaultStore", run: WorkerRun) -> list[tuple[str, str, str]]:
    """(status letter, path before, path after) of every file the run changed, relative to the vault."""
    out = git.run(vault.root, "diff", "--name-status", "-z", "-M", "--relative", "--no-color",
                  f"{run.commit}^", run.commit).stdout
    fields, found, i = out.split("\0"), [], 0
    while i < len(fields) and fields[i]:
        status = fields[i][0]
        if status in "RC":
            found.append((status, fields[i + 1], fields[i + 2]))
            i += 3
        else:
            found.append((status, fields[i + 1], fields[i + 1]))
            i += 2
    return found


def plan(vault: "VaultStore", run: WorkerRun, renamed: dict[str, str] | None = None) -> list[Action]:
    """`renamed`: the event ids sync renumbered since the run (runs.renumbered_since); the run is
    taken back as if it had used them, as the files it wrote name them now."""
    stm_rel = vault.relative(vault.stm_path)
    logs = vault.relative(vault.logs_dir) + "/"
    actions = []
    for status, old, new in changes(vault, run):
        if run.kind == PROMOTION and new == stm_rel:
            continue   # short-term memory is undone event by event (short_term.py)
        if new.startswith(logs):
            continue   # the logs record what happened (reads, a rotation): history, not memory
        before = git.show(vault.root, f"{run.commit}^", old) if status != "A" else None
        after = git.show(vault.root, run.commit, new) if status != "D" else None
        if renamed:
            old, new = renamed_path(old, renamed), renamed_path(new, renamed)
            before, after = (replaced(t, renamed) if t is not None else None for t in (before, after))
        actions.append(_decide(vault, status, vault.root / old, vault.root / new, before, after))
    return actions


def renamed_path(rel: str, renamed: dict[str, str]) -> str:
    """An archived event's path under the id it has now."""
    event_id = event_id_of_file(rel.rsplit("/", 1)[-1])
    return event_rel(renamed[event_id]) if event_id in renamed and rel == event_rel(event_id) else rel


def _current(path: Path) -> tuple[str | None, os.stat_result | None]:
    try:
        seen = os.stat(path)
        return read_text(path), seen
    except FileNotFoundError:
        return None, None
    except NoteError:
        return UNREADABLE, None


UNREADABLE = "\0"   # a file braniac cannot read as text now (binary, huge): never merged into


def _decide(vault: "VaultStore", status: str, old: Path, new: Path, before: str | None, after: str | None) -> Action:
    current, seen = _current(new)
    if current == UNREADABLE:
        return Action(KEEP, new, reason="not readable as a text file now; left as it is")
    if status == "D":
        if current is None:
            return Action(CREATE, old, text=before)
        return Action(KEEP, old, reason="a file is at this place again; left as it is")
    if current is None:
        return Action(SKIP, new)   # gone since the run: nothing of it to take back
    if status == "A" and current == after:
        return Action(REMOVE, new, seen=seen)
    if status == "R" and old.exists():
        return Action(KEEP, new, reason=f"{vault.relative(old)} exists again, so it cannot move back")
    taken = take_back(current, after or "", before if status != "A" else None)
    if taken is None:
        return Action(KEEP, new, reason="changed since the run in ways braniac cannot take apart; left as it is")
    # (a folder's _index.md listing is refreshed from its folder afterwards: nothing is left over)
    reason = (f"{taken.left_over} lines of the run were changed since and stay as they are"
              if taken.left_over and new.name != FOLDER_INDEX else "")
    if status == "R":
        return Action(MOVE_BACK, old, text=taken.text, moved_from=new, seen=seen, reason=reason)
    if taken.text == current:
        return Action(SKIP, new) if not reason else Action(KEEP, new, reason=reason)
    if status == "A" and new.name == FOLDER_INDEX:
        return Action(SKIP, new)   # a folder's listing: refreshed from what is left in it
    return Action(WRITE, new, text=taken.text, seen=seen, reason=reason)
