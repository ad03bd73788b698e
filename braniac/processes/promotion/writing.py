"""Writing long-term memory from a promotion: the raw events archived verbatim, each draft
written or merged into its note, and a digest per day. Every write is idempotent (stable ids
and paths, merges that change nothing the second time), so a re-run completes a killed one."""
from __future__ import annotations

import itertools
import os
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from ...infra import clock, textutil
from ...infra.relative_times import resolve_relative
from ...infra.errors import NoteError, ReadOnlyFile, STMError
from ...infra.fsio import create_file, refuse_read_only, update_text
from ...model.offline.promotion import is_claim
from ...model.offline.sentences import sentences, split_speaker
from ...model.types import EventRecord, NoteDraft
from ...vault import key_facts, notes, stm
from ...vault.adoption import adopted_text
from ...vault.claims import Fact, FactNote, event_path, stable_uuid, stated_values, unmentioned
from ...vault.folder_index import Entry
from ...vault.folders import ensure_folder
from ...vault.layout import ARCHIVE, digest_summary, event_day, event_order
from ...vault.links import plain, rebase
from ...vault.moves import Move, apply_moves
from ...vault.value_changes import replaces_claim
from .places import Places, note_path
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
            if _free_or_holds(vault, event_path(vault, candidate), event):
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


def _free_or_holds(vault: "VaultStore", path: Path, event: stm.Event) -> bool:
    """Whether `path` is free for this event, or already holds it (archived by a killed run, its
    links re-aimed from there; a person may have annotated it since)."""
    if not path.exists() and not path.is_symlink():
        return True
    try:
        body = _content(notes.read(path).body)
    except NoteError:
        return False  # someone's file, unreadable: never overwritten
    own = _content(event.raw).strip()
    return own in body or _content(rebase(event.raw, [vault.stm_path], path)).strip() in body


def archive_event(vault: "VaultStore", event: stm.Event, written: set[Path]) -> None:
    """The raw event, verbatim, as episodic memory (vault-format.md §6: promotion loses nothing);
    `event` as `archive_names` named it."""
    path = event_path(vault, event.id)
    if path.exists() or path.is_symlink():
        if _free_or_holds(vault, path, event):
            return  # already archived (a person may have annotated it): keep theirs
        raise STMError(f"event {event.id}: {vault.relative(path)} holds a different event; "
                       "give one of them another id in short_term.md")
    ensure_folder(vault, path.parent, written)
    user = event.fields.get("User", "")
    title = " ".join(user.split())[:70] or f"Event {event.id}"
    # the event's own links were relative to short_term.md: re-aimed from its new place
    body = rebase(event.raw.rstrip("\n") + "\n", [vault.stm_path], path)
    note = notes.Note.new(title=plain(title), body=body, tags=["event"], emotion="neutral",
                          note_uuid=stable_uuid("event", event.id), extra={"event_id": event.id})
    note.set("created_at", event.id)
    note.set("updated_at", event.id)
    if not create_file(path, note.render()):
        raise STMError(f"event {event.id}: {vault.relative(path)} appeared while it was archived; promote again")
    written.add(path)


def _replaced_in(note: FactNote, claim) -> str | None:
    """The current claim of the note that this newer one replaces by the rules a question is read
    with (value_changes.replaces_claim), which the note's own merge does not know: its text."""
    if not claim.sources or not all(isinstance(s, str) for s in claim.sources):
        return None
    newest = event_order(max(claim.sources, key=event_order))
    for old in note.facts():
        if old.sources and event_order(max(old.sources, key=event_order)) < newest and old.text != claim.text \
                and replaces_claim(old.text, claim.text):
            return old.text
    return None


def write_note(vault: "VaultStore", draft: NoteDraft, drafts: list[NoteDraft], places: Places,
               report: PromotionReport, written: set[Path]) -> None:
    """Create the draft's note or merge its claims (and links to related drafts) into it."""
    note_uuid = places.uuid(draft)
    path = places.target(draft)
    if _left_alone(vault, report, path, draft.title):
        return
    if path.is_relative_to(vault.ltm_root / ARCHIVE) and path.exists():
        # an archived topic comes up again: it returns to the live hierarchy, links repaired
        home = note_path(vault, draft)
        if not home.exists():
            apply_moves(vault, [Move(path, home, "active")], written)
            path = home
    outcomes: dict[str, int] = {}

    def merge(note: FactNote) -> bool:
        outcomes.clear()
        before = note.render()
        for claim in draft.claims:
            # a skill's steps are a list: "Set clear goals" does not replace "Set daily goals"
            # unless the model says it does
            steps = draft.kind == "skills" and not claim.supersedes
            supersedes = claim.supersedes or (None if steps else _replaced_in(note, claim))
            outcome = note.merge(Fact(claim.text, list(claim.sources)), vault, supersedes=supersedes, log=steps)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        _link_related(vault, note, draft, drafts, places)
        if note.render() == before:
            return False
        note.note.set("sources", note.sources())
        note.note.touch()
        return True

    def fresh() -> FactNote:
        ensure_folder(vault, path.parent, written)
        return FactNote.create(path, title=draft.title, summary=draft.summary, tags=draft.tags,
                               emotion=draft.emotion, note_uuid=note_uuid)
    try:
        done = _save(path, fresh, merge, vault.relative(path))
    except NoteError as exc:
        reject(vault, report, f"'{draft.title}': existing note is unreadable, left alone ({exc})")
        return
    except ReadOnlyFile:   # made read-only while the promotion ran
        _left_alone(vault, report, path, draft.title)
        return
    if done is None:
        return
    for outcome, count in outcomes.items():
        if outcome in report.claims:
            report.claims[outcome] += count
    written.add(path)
    (report.notes_created if done == "created" else report.notes_updated).append(vault.relative(path))


def _left_alone(vault: "VaultStore", report: PromotionReport, path: Path, title: str) -> bool:
    """Whether a person made the note (or its folder) read-only: then it is left exactly as it
    is, and the report says so. Its claims are written nowhere else; the events they came from
    are archived all the same, so nothing is lost (vault-format.md §6)."""
    try:
        refuse_read_only(path)
        return False
    except ReadOnlyFile as exc:
        reject(vault, report, f"'{title}': not written ({exc})")
        return True


def _save(path: Path, fresh: Callable[[], FactNote], change: Callable[[FactNote], bool],
          vault_relative: str) -> str | None:
    """Apply `change` to the note at `path`: a new note from `fresh()` when there is none, else
    the note as it is at the moment of writing, never as it was read before the model thought:
    a person's edit made meanwhile is kept (update_text makes the change again on their text).
    'created', 'updated', or None when nothing changed."""
    if not path.exists():
        note = fresh()
        if not change(note):
            return None
        if create_file(path, note.render()):
            return "created"
        # a note appeared there meanwhile: the change is merged into it
    changed = False

    def apply(text: str) -> str:
        nonlocal changed
        # a note a person wrote and braniac has not adopted yet is adopted as it is written to
        adopted = adopted_text(text, vault_relative, os.stat(path)) or text
        note = FactNote(notes.parse(adopted, path=path), path)
        changed = change(note)
        return note.render() if changed else text

    update_text(path, apply)
    return "updated" if changed else None


def _link_related(vault: "VaultStore", note: FactNote, draft: NoteDraft, drafts: list[NoteDraft],
                  places: Places) -> None:
    """Add the draft's related drafts to the note's Related Memories (the links already there
    stay). Only notes already written are linked: a run killed before the others are written
    leaves no link to a file that is not there (`relate` adds them once every note is written)."""
    related = []
    for title in draft.related:
        other = next((d for d in drafts if d.title == title), None)
        if other is not None and places.target(other).exists():
            related.append(Entry(other.title, places.target(other), places.uuid(other), style=vault.link_style))
    if related:
        current = note.related
        known = {e.uuid for e in current}
        merged = current + [e for e in related if e.uuid not in known]
        # the draft's own links in the draft's order, whichever were written first (a run killed
        # between notes writes them in another order than one that was not)
        rank = {title: i for i, title in enumerate(draft.related)}
        slots = [i for i, e in enumerate(merged) if e.text in rank and e.uuid in {r.uuid for r in related}]
        for i, entry in zip(slots, sorted((merged[i] for i in slots), key=lambda e: rank[e.text])):
            merged[i] = entry
        note.set_related(merged[:MAX_RELATED])


def relate(vault: "VaultStore", drafts: list[NoteDraft], places: Places, written: set[Path]) -> None:
    """Once every note of the run is written: the links between them that `write_note` could
    not make yet (a related note written after it)."""
    for draft in drafts:
        path = places.target(draft)
        if not draft.related or not path.is_file():
            continue

        def link(note: FactNote, draft: NoteDraft = draft) -> bool:
            before = note.render()
            _link_related(vault, note, draft, drafts, places)
            return note.render() != before
        def gone(path: Path = path) -> FactNote:
            raise NoteError(f"{path}: removed while promotion linked it")
        try:
            if _save(path, gone, link, vault.relative(path)):
                written.add(path)
        except (NoteError, ReadOnlyFile):
            continue   # named by write_note already, or the person's to fix


def write_digests(vault: "VaultStore", events: list[EventRecord], done_items: list[str], written: set[Path],
                  report: PromotionReport, daily_notes: str | None = None) -> None:
    """A digest per day of events: what happened, one cited line per event with substance,
    plus the completed tasks and decisions recorded from Structured Data; with a daily notes
    folder (`[vault] daily_notes`), a link to the person's note of that day where there is one."""
    by_day: dict[str, list[EventRecord]] = {}
    for event in events:
        by_day.setdefault(event.id[:10], []).append(event)
    last_day = max(by_day)
    for day, day_events in by_day.items():
        path = digest_path(vault, day_events[0].id)
        ensure_folder(vault, path.parent, written)
        recorded = done_items if day == last_day else []

        def add_day(note: FactNote, day_events: list[EventRecord] = day_events, recorded: list[str] = recorded) -> bool:
            before = note.render()
            for event in sorted(day_events, key=lambda e: event_order(e.id)):
                speaker, said = split_speaker(event.user)
                gist = next((s for s in sentences(said) if is_claim(s)), "")
                if gist:
                    who = f"{speaker}: " if speaker else ""
                    gist = resolve_relative(gist, event_day(event.id))
                    note.merge(Fact(defuse(f"{event.id[11:16]} — {who}{gist}"), [event.id]), vault, log=True)
            for item in recorded:
                cites = stating_events(item, events)
                text = defuse(item) if cites else f"{defuse(item)} {NO_SOURCE}"
                note.merge(Fact(text, cites), vault, log=True)
            for person_day in dict.fromkeys(event_day(e.id).isoformat() for e in day_events):
                _link_daily_note(vault, note, daily_notes, person_day)   # Obsidian names them by the person's day
            if note.render() == before:
                return False
            note.note.set("sources", note.sources())
            return True

        def fresh(path: Path = path, day: str = day) -> FactNote:
            return FactNote.create(path, title=f"Digest of {day}", summary=digest_summary(day),
                                   tags=["digest", "events"], emotion="neutral", note_uuid=stable_uuid("digest", day))
        if _left_alone(vault, report, path, f"Digest of {day}"):
            continue
        try:
            if _save(path, fresh, add_day, vault.relative(path)):
                written.add(path)
        except NoteError:
            continue
        except ReadOnlyFile:
            _left_alone(vault, report, path, f"Digest of {day}")


def _link_daily_note(vault: "VaultStore", note: FactNote, folder: str | None, day: str) -> None:
    """The person's daily note of `day` (Obsidian's default name, YYYY-MM-DD.md), once, among
    the digest's Related Memories."""
    if not folder:
        return
    path = vault.root / folder / f"{day}.md"
    if not path.is_file() or any(e.path == path for e in note.related):
        return
    try:
        uuid = notes.read(path).uuid or None
    except NoteError:
        uuid = None
    note.set_related(note.related + [Entry(f"Daily note {day}", path, uuid, style=vault.link_style)])


def digest_path(vault: "VaultStore", event_id: str) -> Path:
    return event_path(vault, event_id).parent / "digest.md"


NO_SOURCE = "(no source: no event states it)"
STATED = 0.8   # the share of a line's (stemmed) content words an event must say to state it


def stating_events(item: str, events: list[EventRecord]) -> list[str]:
    """The events that state a Structured Data line ("task done: book the train"): what the
    person said in them, or else what the assistant said (never braniac's notes), holds the
    line's words and every value it names. The person's first: an answer that later quotes
    their decision back to them is not when it was made. Reflection may have put the line in
    its own words; then no event states it and it is recorded without a source, never with a
    guessed one. A key fact that changed is stated by the event of what stands now (key_facts.py)."""
    said = key_facts.current(item.split(": ", 1)[-1])
    words = set(textutil.content_words(said))
    wanted = stated_values(said)
    found: dict[str, list[str]] = {"User": [], "AI": []}
    for event in events:
        for field in found:
            text = event.fields.get(field, "")
            if words and textutil.overlap(words, text) >= STATED and not unmentioned(wanted, text):
                found[field].append(event.id)
    return sorted(found["User"] or found["AI"])
