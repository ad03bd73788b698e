"""One promotion, start to finish: the checks that decide whether it runs, then the steps in
the order that makes a killed run safe to finish by running again."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock, git
from ...infra.errors import LockBusy, NoteError, ReadOnlyFile
from ...infra.fsio import locked, read_text, refuse_read_only, update_text
from ...infra.notices import notice
from ...model.types import EventRecord, NoteDraft
from ...search.index import update_after_write
from ...vault import stm
from ...vault.claims import event_path
from ...vault.folders import folders_up, refresh_indexes
from ...vault.layout import FOLDER_INDEX, is_event_id, printable_id
from . import bookkeeping
from .drafts import event_record, make_drafts
from .places import Places, note_path
from .report import PromotionReport
from .short_term import new_summary, recorded_items, reset_structured, set_summary, structured_items
from .writing import archive_event, archive_names, digest_path, relate, write_digests, write_note

if TYPE_CHECKING:
    from ...infra.config import Config
    from ...model import MemoryModel
    from ...vault.store import VaultStore


def promote(vault: "VaultStore", model: "MemoryModel", config: "Config", *, force: bool = False,
            dry_run: bool = False) -> PromotionReport:
    report = PromotionReport()
    try:
        with locked(vault.lock_path("ltm"), timeout=0, what="long-term memory"):
            return _promote(vault, model, config, report, force=force, dry_run=dry_run)
    except LockBusy:
        report.status, report.reason = "skipped", "another promotion or organization is running"
        return report


def idle_for(vault: "VaultStore") -> timedelta | None:
    """How long since the newest event in short-term memory (None when it has none to promote)."""
    stamps = []
    for event in promotable(vault.read_stm(), quiet=True):   # a heading that is no id has no time
        try:
            stamps.append(clock.parse_iso(event.id))
        except ValueError:
            continue   # an id-shaped heading that is no real time (2025-13-45T…)
    return clock.now() - max(stamps) if stamps else None


def _promote(vault, model, config, report, *, force, dry_run) -> PromotionReport:
    if git.merge_in_progress(vault.root):   # no worker touches files a person must merge first
        report.status, report.reason = "skipped", git.MERGE_WAITS
        return report
    with locked(vault.lock_path("stm"), what="short-term memory"):
        doc = vault.read_stm()
    archived = archive_names(vault, promotable(doc))   # ids as archived and cited: unique in the vault
    events = [event_record(e) for e in archived]
    if not events:
        report.status, report.reason = "nothing", "short-term memory has no events to promote"
        report.commit = bookkeeping.commit_leftovers(vault, config)
        return report
    quiet = idle_for(vault)
    if not force and quiet is not None and quiet < timedelta(minutes=config.promote_idle_minutes):
        report.status = "skipped"
        report.reason = (f"not idle yet (last event {int(quiet.total_seconds())} s ago; promotion waits "
                         f"{config.promote_idle_minutes:g} min, or use --force)")
        return report
    report.events = [e.id for e in events]
    if not dry_run:
        _refuse_read_only_records(vault, doc)

    drafts = make_drafts(vault, model, events, report)
    if dry_run:
        report.status = "dry-run"
        report.plan = [_planned(vault, d) for d in drafts]
        return report

    autocommit = config.git_autocommit and git.is_repo(vault.root)
    bookkeeping.remove_stale_temp_files(vault)
    if autocommit:
        bookkeeping.checkpoint(vault)
    with bookkeeping.recording(vault, autocommit):
        bookkeeping.start_journal(vault, report.events)
        places = Places(vault, drafts)
        if autocommit:
            targets = _targets(vault, events, drafts, places)
            bookkeeping.keep_persons_edits(vault, targets)
            bookkeeping.remember_targets(vault, targets)
        places.journal_new_notes()
        open_items, done_items = structured_items(doc)
        written = _write_long_term(vault, archived, events, drafts, places, done_items, report, config.daily_notes)
        _finish_short_term(vault, model, doc, events, open_items)
        written.add(vault.stm_path)
        vault.record_run("promotion")
        report.files = sorted(vault.relative(p) for p in written if p.exists())
        update_after_write(vault, written)
        if autocommit:
            report.commit = bookkeeping.commit_promotion(vault, written, report)
    places.done()
    bookkeeping.end_journal(vault)
    return report


def promotable(doc: stm.ShortTermMemory, *, quiet: bool = False) -> list[stm.Event]:
    """The events promotion may take: those whose heading is an event id. Any other `### `
    heading (a title a person typed, or a path such as `../..`) names no place in the archive:
    that event stays in short-term memory, untouched, and the person is told how to fix it."""
    valid = [e for e in doc.events if is_event_id(e.id)]
    if not quiet:
        for event in doc.events:
            if not is_event_id(event.id):
                notice(f"short-term memory: the event '### {printable_id(event.id)}' stays there: its heading is not "
                       f"an event id; give it a UTC timestamp heading (### 2025-03-06T09:00:00Z) to promote it")
    return valid


def _refuse_read_only_records(vault: "VaultStore", doc: stm.ShortTermMemory) -> None:
    """Before anything is written: the events can leave short-term memory only once archived,
    so a read-only short_term.md, or an event's archive a person made read-only (unless it
    holds the event already), stops the promotion here, having changed nothing. A read-only
    note, digest or _index.md only is left alone (writing.py, folders.py); the rest goes on."""
    try:
        refuse_read_only(vault.stm_path)
        for event in promotable(doc, quiet=True):
            path = event_path(vault, event.id)
            try:
                refuse_read_only(path)
            except ReadOnlyFile:
                if not _holds(path, event.raw.rstrip("\n")):
                    raise
    except ReadOnlyFile as exc:
        raise ReadOnlyFile(f"promotion stopped before changing anything: {exc}") from None


def _holds(path: Path, text: str) -> bool:
    try:
        return path.is_file() and text in read_text(path)
    except NoteError:
        return False


def _planned(vault: "VaultStore", draft: NoteDraft) -> dict:
    """A dry run's line for one draft: where its note would be written."""
    path = note_path(vault, draft)
    shown = vault.relative(path) if path.exists() else str(path.relative_to(vault.root))
    return {"kind": draft.kind, "path": shown, "title": draft.title, "claims": len(draft.claims)}


def _targets(vault: "VaultStore", events: list[EventRecord], drafts: list[NoteDraft],
             places: Places) -> set[Path]:
    """Every file the run may write: archived events, notes, digests, short_term.md and the
    _index.md of every folder above them."""
    found = {event_path(vault, e.id) for e in events} | {places.target(d) for d in drafts}
    found |= {digest_path(vault, e.id) for e in events} | {vault.stm_path}
    found |= {folder / FOLDER_INDEX for t in list(found) for folder in folders_up(vault, t.parent)}
    return found


def _write_long_term(vault: "VaultStore", archived: list[stm.Event], events: list[EventRecord],
                     drafts: list[NoteDraft], places: Places, done_items: list[str],
                     report: PromotionReport, daily_notes: str | None = None) -> set[Path]:
    written: set[Path] = set()
    for event in archived:
        archive_event(vault, event, written)
    for draft in drafts:
        write_note(vault, draft, drafts, places, report, written)
    relate(vault, drafts, places, written)
    write_digests(vault, events, done_items, written, report, daily_notes)
    # every folder this promotion writes to, not only those changed by this run: the re-run after
    # a kill between a note's write and its folder's _index.md finds the note already there
    folders = {p.parent for p in written} | {places.target(d).parent for d in drafts}
    refresh_indexes(vault, folders | {event_path(vault, e.id).parent for e in events}, written)
    return written


def _finish_short_term(vault: "VaultStore", model: "MemoryModel", doc: stm.ShortTermMemory,
                       events: list[EventRecord], open_items: list[str]) -> None:
    """Take out of short-term memory exactly what this promotion recorded, on the file as it is
    now, and write the new Summary. Reflection may have added events meanwhile, and a person may
    have edited the file: an event they corrected since the snapshot stays (the next promotion
    archives the corrected version beside the first, see writing.archive_event), as does another
    event with the same id (`stm.event_key`); a Key Fact they added or a task they ticked stays
    until a digest records it, and a Summary they rewrote is theirs. `events` are the promoted
    ones as archived (in the snapshot's order), for the Summary."""
    snapshot = {stm.event_key(e): record for e, record in zip(promotable(doc, quiet=True), events)}
    recorded = recorded_items(doc)
    summaries: dict[tuple, str] = {}

    def finalize(text: str) -> str:
        current = stm.parse(text)
        promoted = [e for e in current.events if stm.event_key(e) in snapshot]
        gone = {stm.event_key(e) for e in promoted}
        remaining = [event_record(e) for e in current.events if stm.event_key(e) not in gone]
        current.remove_exact(promoted)
        reset_structured(current, recorded)
        if current.summary == doc.summary:
            key = (tuple(sorted(gone)), tuple(e.id for e in remaining))
            if key not in summaries:   # (asked once, not again when the file changed under us)
                summaries[key] = new_summary(model, [snapshot[k] for k in snapshot if k in gone], remaining, open_items)
            set_summary(current, summaries[key])
        return current.render()

    with locked(vault.lock_path("stm"), what="short-term memory"):
        update_text(vault.stm_path, finalize)
