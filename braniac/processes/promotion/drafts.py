"""The model's part of a promotion: which notes the events belong in (analyze), what each
note should say (synthesize), and the check of every draft against the vault's bounds."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import textutil
from ...infra.relative_times import resolve_relative
from ...infra.errors import BraniacError, NoteError, UnsafePath
from ...infra.notices import notice
from ...model.offline import OfflineModel
from ...model.offline.promotion import relate
from ...model.offline.sentences import sentences
from ...model.types import Claim, EventRecord, NoteDraft
from ...search.index import SearchIndex
from ...vault.claims import FACTS, HISTORY, Fact, FactNote, stated_values, unmentioned
from ...vault.value_changes import replaces_claim
from ..handoff import is_wrap_up
from ...vault.layout import FOLDER_INDEX, event_day, event_order, newest_event, RESTRUCTURED_TIERS as NOTE_TIERS  # events are archived, not drafted
from ...vault.notes import slugify
from .places import note_path
from .report import PromotionReport, reject
from .safe_text import defuse, plain_line

if TYPE_CHECKING:
    from ...model import MemoryModel
    from ...vault import stm
    from ...vault.store import VaultStore

MAX_DRAFTS = 200
MAX_CLAIMS = 200
MAX_CLAIM_CHARS = 1500
# of each field of an event, what the model (or the offline engine) reads to draft notes: a
# field braniac wrote is shorter; a megabyte line pasted into short_term.md would only make
# every draft slow (the archived event keeps all of it)
MAX_FIELD_CHARS = 20_000
MAX_DEPTH = 4
GROUNDED_SHARE = 1 / 3     # of a model's claim's content words, what its cited events must also say
RESERVED = {"core-identity", "core_identity", "short-term", "short_term", "index", "_index", "access-log"}


def event_record(event: "stm.Event") -> EventRecord:
    """An event as the model sees it: each field cut to MAX_FIELD_CHARS, saying so."""
    fields = {}
    for name, value in event.fields.items():
        if len(value) > MAX_FIELD_CHARS:
            value = value[:MAX_FIELD_CHARS] + f" [… {len(value) - MAX_FIELD_CHARS} more characters in the archived event]"
        fields[name] = value
    return EventRecord(event.id, fields)


def make_drafts(vault: "VaultStore", model: "MemoryModel", events: list[EventRecord],
                report: PromotionReport) -> list[NoteDraft]:
    """The validated drafts of the notes these events go into (the rest is rejected and logged)."""
    titles = known_titles(vault)
    # an assistant's wrap-up of a session is a handoff for the next one (orient reads it), kept in
    # the archive and the day's digest; what the session was about was remembered as it was said,
    # and "Next step: …" is no topic ("Next") to file a note under
    events = [e for e in events if not is_wrap_up(e.fields)]
    if not events:
        return []
    try:
        candidates = model.analyze(events, titles)
    except BraniacError as exc:
        notice(f"the model could not analyze the events ({exc}); using the offline engine's analysis")
        model = OfflineModel()
        candidates = model.analyze(events, titles)
    by_id = {e.id: e for e in events}
    ours = _for_uncited(model, candidates, events, titles, vault, report)
    offline = {id(c) for c in ours}       # the offline engine writes the notes of its own candidates
    candidates += ours
    drafts = []
    homes = existing_folders(vault)

    def draft(candidate, writer: "MemoryModel") -> None:
        # a topic that already has a note keeps it, wherever it lives (no duplicate note)
        found = homes.get((candidate.kind, slugify(candidate.title)))
        if found is not None:
            candidate.folder = found
        relevant = [by_id[i] for i in candidate.event_ids if i in by_id]
        if not relevant:
            reject(vault, report, f"candidate '{candidate.title}' cites no event of this promotion")
            return
        note = _note_of(vault, candidate)
        try:
            made = writer.synthesize(candidate, relevant, [f.text for f in note.facts()] if note else [])
        except BraniacError as exc:
            reject(vault, report, f"candidate '{candidate.title}': {exc}")
            return
        if note is not None and not isinstance(writer, OfflineModel):
            made = keep_values_current(made, candidate, relevant, note, vault, report)
        checked = validate(made, set(by_id), vault, report)
        if checked is not None and not isinstance(writer, OfflineModel) and \
                keep_grounded(checked, candidate, relevant, vault, report):
            checked = validate(checked, set(by_id), vault, report)   # (the events' own words, checked alike)
        if checked is not None:
            drafts.append(checked)

    for candidate in candidates[:MAX_DRAFTS]:
        draft(candidate, OfflineModel() if id(candidate) in offline else model)
    theirs = [c for c in candidates[:MAX_DRAFTS] if id(c) not in offline]
    for candidate in _for_unclaimed(model, theirs, drafts, events, titles, vault, report):
        draft(candidate, OfflineModel())
    if len(candidates) > MAX_DRAFTS:
        reject(vault, report, f"{len(candidates) - MAX_DRAFTS} candidates beyond the limit of {MAX_DRAFTS} were ignored")
    carry_updates(drafts)
    relate(drafts)
    return drafts


def carry_updates(drafts: list[NoteDraft]) -> None:
    """A note that states an old value also gets the newer statement of it from this run
    ("the staging database runs PostgreSQL on port 5432" in the PostgreSQL note, "it moved to
    port 5433" only in the port note): writing it supersedes the old one there too, so no note
    keeps a value that changed as current. The same rule as a note's own merge."""
    stated = [(c, Fact(c.text, list(c.sources))) for d in drafts for c in d.claims
              if c.sources and all(isinstance(s, str) for s in c.sources)]
    newer_of: dict[str, list[Claim]] = {}
    for old, a in stated:
        for new, b in stated:
            if event_order(newest_event(new.sources)) <= event_order(newest_event(old.sources)) or new.text == old.text:
                continue
            if replaces_claim(a.text, b.text):
                newer_of.setdefault(old.text, []).append(new)
    if not newer_of:
        return
    for draft in drafts:
        have = {c.text for c in draft.claims}
        for claim in list(draft.claims):
            for new in newer_of.get(claim.text, ()):
                if new.text not in have:
                    draft.claims.append(Claim(new.text, list(new.sources)))
                    have.add(new.text)


def _note_of(vault: "VaultStore", candidate) -> FactNote | None:
    """The note a candidate would update, if there is one already (the model is shown its
    current claims, so it can supersede them)."""
    if candidate.kind not in NOTE_TIERS or not all(isinstance(f, str) for f in candidate.folder):
        return None
    path = vault.ltm_root / candidate.kind / Path(*[slugify(f) for f in candidate.folder]) / f"{slugify(candidate.title)}.md"
    try:
        return FactNote.load(path) if path.is_file() else None
    except NoteError:
        return None


def _for_uncited(model: "MemoryModel", candidates: list, events: list[EventRecord], titles: list[str],
                 vault: "VaultStore", report: PromotionReport) -> list:
    """The offline engine's candidates for the events no candidate of the model cites (a small
    model names two topics for fifteen facts): every event that states something reaches a note,
    whoever analyzed it. The offline analysis skips small talk by its own rules."""
    if isinstance(model, OfflineModel):
        return []
    cited = {i for c in candidates for i in c.event_ids}
    left = [e for e in events if e.id not in cited]
    return _offline_for(left, events, titles, vault, report,
                        f"the model's analysis cited {len(events) - len(left)} of {len(events)} events")


def _for_unclaimed(model: "MemoryModel", candidates: list, drafts: list[NoteDraft], events: list[EventRecord],
                   titles: list[str], vault: "VaultStore", report: PromotionReport) -> list:
    """The offline engine's candidates for the events the model's analysis placed but none of
    its notes' claims cite (a 1.5B model writes one claim for a note given twelve events): what
    those events state reaches a note of its own rather than the archive alone."""
    if isinstance(model, OfflineModel):
        return []
    placed = {i for c in candidates for i in c.event_ids}
    claimed = {s for d in drafts for claim in d.claims for s in claim.sources if isinstance(s, str)}
    left = [e for e in events if e.id in placed and e.id not in claimed]
    return _offline_for(left, events, titles, vault, report,
                        f"the model's notes cite {len(placed & claimed)} of the {len(placed)} events its analysis placed")


def _offline_for(left: list[EventRecord], events: list[EventRecord], titles: list[str], vault: "VaultStore",
                 report: PromotionReport, why: str) -> list:
    """The offline analysis's candidates for some of the run's events, read among all of them: a
    topic is a word that comes back across events, so "the staging database moved to port 5433"
    analyzed alone makes no note, and beside the statement it updates it joins "staging database"."""
    if not left:
        return []
    keep = {e.id for e in left}
    out = []
    for candidate in OfflineModel().analyze(events, titles):
        candidate.event_ids = [i for i in candidate.event_ids if i in keep]
        if candidate.event_ids:
            out.append(candidate)
    if out:   # one line in the report and the promotion log: what the model left to braniac
        reject(vault, report, f"{why}; the offline analysis placed the other {len(left)} ({len(out)} candidates)")
    return out


def _their_own_words(candidate, cited: list[EventRecord]) -> list[Claim]:
    """The offline engine's claims from these events, in the person's own words."""
    return OfflineModel().synthesize(candidate, cited, []).claims or \
        [Claim(f"{event_day(e.id).isoformat()} — {' '.join(sentences(e.user))}", [e.id]) for e in cited if e.user.strip()]


def keep_grounded(draft: NoteDraft, candidate, events: list[EventRecord], vault: "VaultStore",
                  report: PromotionReport) -> bool:
    """A model's claim must say something its cited events say: one that shares under a third of
    its content words with what they say (a small model restating its instructions, "the
    assistant's constitution is loaded into every prompt", citing "the CI runs on every push")
    is refused and logged, and the offline engine's claims from those events take its place. A
    paraphrase keeps the names and nouns it restates. Whether any claim was replaced."""
    by_id = {e.id: e for e in events}
    kept: list[Claim] = []
    replaced = False
    for claim in draft.claims:
        cited = [by_id[s] for s in claim.sources if isinstance(s, str) and s in by_id]
        # what the person and the assistant said, not the reflection's own notes on it
        said = {textutil.stem(w) for e in cited for w in textutil.content_words(f"{e.user}\n{e.ai}")}
        words = {textutil.stem(w) for w in textutil.content_words(str(claim.text))} - textutil.generic_stems()
        if not cited or not words or len(words & said) >= GROUNDED_SHARE * len(words):
            kept.append(claim)   # (an uncited claim is validate's to drop)
            continue
        reject(vault, report, f"'{draft.title}': the model's claim {str(claim.text)[:120]!r} says little the "
                              "events it cites say; their own words were kept instead")
        kept += [c for c in _their_own_words(candidate, cited) if all(c.text != k.text for k in kept)]
        replaced = True
    draft.claims = kept
    return replaced


def keep_values_current(draft: NoteDraft, candidate, events: list[EventRecord], note: FactNote,
                        vault: "VaultStore", report: PromotionReport) -> NoteDraft:
    """The deterministic check after a model's synthesis: a claim that states a value none of
    the events it cites states, but one of the note's claims does (the model carried the old
    port, address or date over to a newer event), is refused and logged; the offline engine's
    claims from those events, in the person's own words, take its place."""
    old_values = set().union(*(stated_values(f.text) for section in (FACTS, HISTORY) for f in note.facts(section)))
    by_id = {e.id: e for e in events}
    kept: list[Claim] = []
    for claim in draft.claims:
        cited = [by_id[s] for s in claim.sources if isinstance(s, str) and s in by_id]
        said = " ".join(f"{e.id} {e.text}" for e in cited)
        stale = unmentioned(stated_values(str(claim.text)), said) & old_values if cited else set()
        if not stale:
            kept.append(claim)
            continue
        reject(vault, report, f"'{draft.title}': the model's claim {str(claim.text)[:120]!r} states "
                              f"{', '.join(sorted(stale))}, which its events do not (an older value); "
                              "their own words were kept instead")
        kept += [c for c in _their_own_words(candidate, cited) if all(c.text != k.text for k in kept)]
    draft.claims = kept
    return draft


def existing_folders(vault: "VaultStore") -> dict[tuple[str, str], list[str]]:
    """(tier, note slug) -> folder below the tier, for every note already in concrete/ and skills/."""
    found: dict[tuple[str, str], list[str]] = {}
    for tier in NOTE_TIERS:
        root = vault.ltm_root / tier
        for path in root.rglob("*.md") if root.is_dir() else ():
            if path.name != FOLDER_INDEX:
                found.setdefault((tier, path.stem), list(path.parent.relative_to(root).parts))
    return found


def known_titles(vault: "VaultStore") -> list[str]:
    """Titles of the concrete and skill notes already in long-term memory (from the index)."""
    try:
        index = SearchIndex(vault)
        index.sync()
        titles = [f.get("title", "") for f in index.searcher().all_stored_fields()
                  if f.get("kind") in NOTE_TIERS]
        index.close()
        return sorted(set(t for t in titles if t))
    except Exception:
        return []


def validate(draft: NoteDraft, event_ids: set[str], vault: "VaultStore", report: PromotionReport) -> NoteDraft | None:
    """Check a draft against the vault's bounds; reject (and log) rather than repair hostile parts."""
    if draft.kind not in NOTE_TIERS:
        reject(vault, report, f"'{draft.title}': kind {draft.kind!r} is not concrete or skills")
        return None
    for segment in draft.folder:
        if not isinstance(segment, str) or not segment.strip() or re.search(r"[/\\]|^\.|\.\.|^~|:", segment):
            reject(vault, report, f"'{draft.title}': folder {draft.folder!r} is not a plain topic path")
            return None
    if len(draft.folder) > MAX_DEPTH:
        reject(vault, report, f"'{draft.title}': folder {draft.folder!r} is deeper than {MAX_DEPTH}")
        return None
    title = plain_line(draft.title)[:120]
    if not title or re.search(r"[/\\]|\.\.", title) or slugify(title) in RESERVED or slugify(title).startswith("_"):
        reject(vault, report, f"title {draft.title!r} is not allowed for a note")
        return None
    claims = []
    for claim in draft.claims[:MAX_CLAIMS]:
        sources = [s for s in claim.sources if s in event_ids]
        if not sources:
            reject(vault, report, f"'{title}': a claim without a valid event citation was dropped")
            continue
        text = defuse(" ".join(str(claim.text).split())[:MAX_CLAIM_CHARS].lstrip("#>-* "))
        text = resolve_relative(text, event_day(min(sources)))   # "last Friday": of that event's week
        if text:
            claims.append(Claim(text, sources, claim.supersedes))
    if not claims:
        return None
    draft.title = title
    draft.folder = [slugify(s) for s in draft.folder]
    draft.claims = claims
    draft.tags = [slugify(t) for t in draft.tags if isinstance(t, str) and slugify(t) != "note"][:8]
    draft.emotion = slugify(str(draft.emotion or "neutral")).replace("-", "_")[:30] or "neutral"
    draft.summary = defuse(re.sub(r"^[#>\s`~*_=-]+", "", " ".join(str(draft.summary).split())[:600]))
    try:
        note_path(vault, draft)
    except UnsafePath as exc:
        reject(vault, report, f"'{title}': {exc}")
        return None
    return draft
