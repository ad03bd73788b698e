"""`braniac undo`: take one promotion or organization back out of the vault, whatever came after
it, with nothing else lost, and commit that as a run of its own.

Each file the run changed gets the run's change taken back out of it as it is now (a three-way
merge, plan.py); a file changed since in the same places stays as it is and is listed. Notes the
run moved go back to their old places and every link is re-aimed; a promotion's events return
to short-term memory. The undo holds the long-term memory lock, as the workers do."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...infra.fsio import atomic_write, create_file, locked, remove_file
from ...infra.fsio_folders import remove_directory
from ...search.index import update_after_write
from ...vault import moves
from ...vault.folders import refresh_indexes
from ...vault.layout import FOLDER_INDEX
from ..commits import commit_now, keep_persons_edits, keep_short_term
from .dangling import citing, drop_links_to
from .plan import CREATE, MOVE_BACK, REMOVE, WRITE, Action, plan
from .report import UndoReport
from .runs import PROMOTION, UNDOES, lines_written, renumbered_since, resolve
from .short_term import give_back, what_the_run_took

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def undo(vault: "VaultStore", run_ref: str | None = None, *, dry_run: bool = False) -> UndoReport:
    with locked(vault.lock_path("ltm"), what="long-term memory (a promotion or organization is running)"):
        run = resolve(vault, run_ref)
        renamed = renumbered_since(vault, run)   # the run's event ids a later sync changed
        actions = plan(vault, run, renamed)
        taken = what_the_run_took(vault, run, renamed) if run.kind == PROMOTION else None
        report = UndoReport(run=run, dry_run=dry_run)
        report.add(vault, actions)
        if taken is not None:
            report.events = [e.id for e in taken.events]
        if dry_run:
            return report
        # what is uncommitted in these files goes in commits of its own: the undo's commit takes
        # in the whole file, and `git revert` of the undo must not take those edits back
        if taken is not None and not taken.empty:
            keep_short_term(vault, "undo")
        keep_persons_edits(vault, _to_be_written(vault, actions), "undo")
        written = _apply(vault, actions, lines_written(vault, run, renamed))
        report.removed = sorted(r for r in report.removed if not (vault.root / r).exists())
        if taken is not None and not taken.empty:
            report.events = give_back(vault, taken)
            written.add(vault.stm_path)
        update_after_write(vault, {p for p in written if p.exists()})
        report.commit = commit_now(vault, written, _message(run, report))
        return report


def _apply(vault: "VaultStore", actions: list[Action], braniacs: set[str]) -> set[Path]:
    written: set[Path] = set()
    moved_back: dict[Path, Path] = {}
    listings = {a.path.parent for a in actions if a.path.name == FOLDER_INDEX}
    # notes first, then the _index.md of folders the run had made, deepest first: such a folder
    # goes only once nothing but its _index.md is left in it
    for action in sorted(actions, key=lambda a: (a.path.name == FOLDER_INDEX, -len((a.moved_from or a.path).parts))):
        if action.kind == WRITE:
            atomic_write(action.path, action.text or "", expect_unchanged=action.seen)
        elif action.kind == CREATE:
            action.path.parent.mkdir(parents=True, exist_ok=True)
            create_file(action.path, action.text or "")
        elif action.kind == MOVE_BACK:
            action.path.parent.mkdir(parents=True, exist_ok=True)
            if create_file(action.path, action.text or ""):
                _remove(vault, action.moved_from, written)
                moved_back[action.moved_from] = action.path
        elif action.kind == REMOVE:
            _remove(vault, action.path, written)
        if action.kind in (WRITE, CREATE, MOVE_BACK):
            written.add(action.path)
    if moved_back:
        _re_aim_links(vault, moved_back, written)
    drop_links_to(vault, {p for p in written if not p.exists()} - set(moved_back), written, braniacs)
    touched = {p.parent for p in written} | {p.parent.parent for p in written if p.name == FOLDER_INDEX} | listings
    folders = {f for f in touched if f.is_dir() and f.is_relative_to(vault.ltm_root)}
    refresh_indexes(vault, folders, written)
    return written


def _to_be_written(vault: "VaultStore", actions: list[Action]) -> set[Path]:
    """The files the undo will write, as far as it can tell before it writes: those it takes the
    run out of, those citing what it removes, and the listings of their folders."""
    paths = {a.moved_from if a.kind == MOVE_BACK else a.path for a in actions if a.kind in (WRITE, MOVE_BACK)}
    paths |= set(citing(vault, {a.path for a in actions if a.kind == REMOVE}))
    return paths | {p.parent / FOLDER_INDEX for p in paths | {a.path for a in actions}}


def _re_aim_links(vault: "VaultStore", moved_back: dict[Path, Path], written: set[Path]) -> None:
    moves.repair_links(vault, moved_back, moves.uuids_of(moved_back.values()), written)


def _remove(vault: "VaultStore", path: Path, written: set[Path]) -> None:
    """Remove a file the run had created. The _index.md of a folder the run made takes the folder
    with it once nothing else is left there (never a folder without its _index.md); while a later
    run's notes are in it, it stays and is refreshed."""
    folder = path.parent
    if path.name == FOLDER_INDEX:
        if folder == vault.ltm_root or not folder.is_dir() or [p.name for p in folder.iterdir()] != [FOLDER_INDEX]:
            return
        remove_directory(folder)
        written.add(path)
        return
    if path.exists():
        remove_file(path)
        written.add(path)


def _message(run, report: UndoReport) -> str:
    lines = [f"braniac: undo {run.kind} {run.short}", "", f"Undid: {run.subject}"]
    if report.events:
        lines.append(f"Events back in short-term memory: {len(report.events)}")
    if report.kept:
        lines.append(f"Left as they are (changed since): {len(report.kept)}")
    lines += ["", f"{UNDOES} {run.commit}"]
    return "\n".join(lines) + "\n"
