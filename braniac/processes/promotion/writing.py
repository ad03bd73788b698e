"""Writing long-term memory from a promotion: the raw events archived verbatim, each draft
written or merged into its note, and a digest per day. Every write is idempotent (stable ids
and paths, merges that change nothing the second time), so a re-run completes a killed one."""
from __future__ import annotations

import itertools
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ...infra import clock, textutil
from ...infra.errors import NoteError, STMError
from ...infra.fsio import atomic_write
from ...model.offline.promotion import is_claim, sentences, split_speaker
from ...model.types import EventRecord, NoteDraft
from ...vault import notes, stm
from ...vault.claims import Fact, FactNote, event_path, stable_uuid
from ...vault.folder_index import Entry
from ...vault.folders import ensure_folder
from ...vault.layout import ARCHIVE
from ...vault.moves import Move, apply_moves
from .places import draft_uuid, note_path, target
from .report import PromotionReport, reject
from .safe_text import defuse

if TYPE_CHECKING:
    from ...vault.store import VaultStore

MAX_RELATED = 10


def archive_names(vault: "VaultStore", events: list[stm.Event]) -> list[stm.Event]:
    """Each event under the id it is archived as: its own, unless that id is taken by another
    event (the Event Log holds two events with one id, or the archive holds a different event
    of that id); then the next free id counted up in milliseconds, as a new event gets
    (vault-format.md §5.4), its heading in the archived copy saying so. Both events are kept.
    The choice depends only on the files, so a re-run after a kill makes the same one."""
    own = {e.id for e in events}
    taken: set[str] = set()
    named = []
    for event in events:
        chosen = event.id
        for candidate in _candidate_ids(event.id):
            if candidate in taken or (candidate != event.id and candidate in own):
                continue
            if _free_or_holds(event_path(vault, candidate), event):
                chosen = candidate
                break
        taken.add(chosen)
        named.append(event if chosen == event.id else stm.Event(chosen, f"### {chosen}\n" + _content(event.raw)))
    return named


def _candidate_ids(event_id: str) -> Iterator[str]:
    yield event_id
    try:
        second = clock.parse_iso(event_id).replace(microsecond=0)
    except ValueError:
        return  # not an id braniac can count up from: only its own place
    for step in itertools.count(1):
        yield clock.iso(second + timedelta(milliseconds=step))


def _content(raw: str) -> str:
    """An event without its `### id` heading line."""
    return raw.split("\n", 1)[1] if "\n" in raw else ""


def _free_or_holds(path: Path, event: stm.Event) -> bool:
    """Whether `path` is free for this event, or already holds it (archived by a killed run; a
    person may have annotated it since)."""
    if not path.exists() and not path.is_symlink():
        return True
    try:
        body = notes.read(path).body
    except NoteError:
        return False  # someone's file, unreadable: never overwritten
    return _content(event.raw).strip() in _content(body)


def archive_event(vault: "VaultStore", event: stm.Event, written: set[Path]) -> None:
    """The raw event, verbatim, as episodic memory (vault-format.md §6: promotion loses nothing);
    `event` as `archive_names` named it."""
    path = event_path(vault, event.id)
    if path.exists() or path.is_symlink():
        if _free_or_holds(path, event):
            return  # already archived (a person may have annotated it): keep theirs
        raise STMError(f"event {event.id}: {vault.relative(path)} holds a different event; "
                       "give one of them another id in short_term.md")
    ensure_folder(vault, path.parent, written)
    user = event.fields.get("User", "")
    title = " ".join(user.split())[:70] or f"Event {event.id}"
    note = notes.Note.new(title=title, body=event.raw.rstrip("\n") + "\n", tags=["event"], emotion="neutral",
                          note_uuid=stable_uuid("event", event.id), extra={"event_id": event.id})
    note.set("created_at", event.id)
    note.set("updated_at", event.id)
    atomic_write(path, note.render())
    written.add(path)


def write_note(vault: "VaultStore", draft: NoteDraft, drafts: list[NoteDraft], uuid_paths: dict[str, Path],
               report: PromotionReport, written: set[Path]) -> None:
    """Create the draft's note or merge its claims (and links to related drafts) into it."""
    note_uuid = draft_uuid(draft)
    path = target(vault, draft, uuid_paths)
    if path.is_relative_to(vault.ltm_root / ARCHIVE) and path.exists():
        # an archived topic comes up again: it returns to the live hierarchy, links repaired
        home = note_path(vault, draft)
        if not home.exists():
            apply_moves(vault, [Move(path, home, "active")], written)
            uuid_paths[note_uuid] = path = home
    created = not path.exists()
    if created:
        ensure_folder(vault, path.parent, written)
        note = FactNote.create(path, title=draft.title, summary=draft.summary, tags=draft.tags,
                               emotion=draft.emotion, note_uuid=note_uuid)
    else:
        try:
            note = FactNote.load(path)
        except NoteError as exc:
            reject(vault, report, f"'{draft.title}': existing note is unreadable, left alone ({exc})")
            return
    before = note.render()
    for claim in draft.claims:
        outcome = note.merge(Fact(claim.text, list(claim.sources)), vault, supersedes=claim.supersedes)
        if outcome in report.claims:
            report.claims[outcome] += 1
    _link_related(vault, note, draft, drafts, uuid_paths)
    if note.render() == before:
        return
    note.note.set("sources", note.sources())
    if not created:
        note.note.touch()
    atomic_write(path, note.render())
    written.add(path)
    (report.notes_created if created else report.notes_updated).append(vault.relative(path))


def _link_related(vault: "VaultStore", note: FactNote, draft: NoteDraft, drafts: list[NoteDraft],
                  uuid_paths: dict[str, Path]) -> None:
    """Add the draft's related drafts to the note's Related Memories (the links already there stay)."""
    related = []
    for title in draft.related:
        other = next((d for d in drafts if d.title == title), None)
        if other is not None:
            related.append(Entry(other.title, target(vault, other, uuid_paths), draft_uuid(other)))
    if related:
        current = note.related
        known = {e.uuid for e in current}
        note.set_related((current + [e for e in related if e.uuid not in known])[:MAX_RELATED])


def write_digests(vault: "VaultStore", events: list[EventRecord], done_items: list[str], written: set[Path]) -> None:
    """A digest per day of events: what happened, one cited line per event with substance,
    plus the completed tasks and decisions recorded from Structured Data."""
    by_day: dict[str, list[EventRecord]] = {}
    for event in events:
        by_day.setdefault(event.id[:10], []).append(event)
    last_day = max(by_day)
    for day, day_events in by_day.items():
        path = digest_path(vault, day_events[0].id)
        ensure_folder(vault, path.parent, written)
        if path.exists():
            try:
                note = FactNote.load(path)
            except NoteError:
                continue
        else:
            note = FactNote.create(path, title=f"Digest of {day}", summary=f"What happened on {day}.",
                                   tags=["digest", "events"], emotion="neutral", note_uuid=stable_uuid("digest", day))
        before = note.render()
        for event in sorted(day_events, key=lambda e: e.id):
            speaker, said = split_speaker(event.user)
            gist = next((s for s in sentences(said) if is_claim(s)), "")
            if gist:
                who = f"{speaker}: " if speaker else ""
                note.merge(Fact(defuse(f"{event.id[11:16]} — {who}{gist}"), [event.id]), vault)
        if day == last_day:
            for item in done_items:
                cite = _best_event(item, events)
                if cite:
                    note.merge(Fact(defuse(item), [cite]), vault)
        if note.render() != before:
            note.note.set("sources", note.sources())
            atomic_write(path, note.render())
            written.add(path)


def digest_path(vault: "VaultStore", event_id: str) -> Path:
    return event_path(vault, event_id).parent / "digest.md"


def _best_event(text: str, events: list[EventRecord]) -> str | None:
    """The event a Structured Data line most likely came from (it becomes the citation)."""
    words = set(textutil.content_words(text.split(":", 1)[-1]))
    best, score = None, 0.0
    for event in events:
        value = textutil.overlap(words, event.text)
        if value > score:
            best, score = event.id, value
    return best or (events[0].id if events else None)
