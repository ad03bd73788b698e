"""Writing long-term memory from a promotion: the raw events archived verbatim, each draft
written or merged into its note, and a digest per day. Every write is idempotent (stable ids
and paths, merges that change nothing the second time), so a re-run completes a killed one."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import textutil
from ...infra.errors import NoteError
from ...infra.fsio import atomic_write, read_text
from ...model.offline.promotion import is_claim, sentences, split_speaker
from ...model.types import EventRecord, NoteDraft
from ...vault import notes, stm
from ...vault.claims import Fact, FactNote, event_path, stable_uuid, stated_values, unmentioned
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


def archive_event(vault: "VaultStore", event: stm.Event, written: set[Path]) -> None:
    """The raw event, verbatim, as episodic memory (vault-format.md §6: promotion loses nothing)."""
    path = event_path(vault, event.id)
    ensure_folder(vault, path.parent, written)
    user = event.fields.get("User", "")
    title = " ".join(user.split())[:70] or f"Event {event.id}"
    note = notes.Note.new(title=title, body=event.raw.rstrip("\n") + "\n", tags=["event"], emotion="neutral",
                          note_uuid=stable_uuid("event", event.id), extra={"event_id": event.id})
    note.set("created_at", event.id)
    note.set("updated_at", event.id)
    text = note.render()
    if path.exists():
        try:
            if read_text(path) == text:
                return
            if notes.read(path).meta.get("event_id") == event.id:
                return  # already archived (a person may have annotated it): keep theirs
        except NoteError:
            pass
    atomic_write(path, text)
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
                note.merge(Fact(defuse(f"{event.id[11:16]} — {who}{gist}"), [event.id]), vault, log=True)
        if day == last_day:
            for item in done_items:
                cites = stating_events(item, events)
                text = defuse(item) if cites else f"{defuse(item)} {NO_SOURCE}"
                note.merge(Fact(text, cites), vault, log=True)
        if note.render() != before:
            note.note.set("sources", note.sources())
            atomic_write(path, note.render())
            written.add(path)


def digest_path(vault: "VaultStore", event_id: str) -> Path:
    return event_path(vault, event_id).parent / "digest.md"


NO_SOURCE = "(no source: no event states it)"
STATED = 0.8   # the share of a line's (stemmed) content words an event must say to state it


def stating_events(item: str, events: list[EventRecord]) -> list[str]:
    """The events that state a Structured Data line ("task done: book the train"): what the
    person or the assistant said in them (never braniac's notes) holds the line's words and
    every value it names. Reflection may have put the line in its own words; then no event
    states it and it is recorded without a source, never with a guessed one."""
    said = item.split(": ", 1)[-1]
    words = set(textutil.content_words(said))
    wanted = stated_values(said)
    found = []
    for event in events:
        text = "\n".join(v for k, v in event.fields.items() if k in ("User", "AI"))
        if words and textutil.overlap(words, text) >= STATED and not unmentioned(wanted, text):
            found.append(event.id)
    return sorted(found)
