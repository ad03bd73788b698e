"""Promotion & pruning (spec §4.4): consolidate short-term memory into long-term memory.

    snapshot STM (STM lock, briefly) -> analyze -> synthesize each candidate (no lock held
    while the model thinks) -> archive the raw events under events/YYYY/MM/DD/ -> write or
    merge notes -> day digests -> every _index.md up to the root -> take the promoted events out
    of STM and write the new Summary (STM lock, briefly) -> index -> one git commit

The LTM lock is held for the whole run, so two promotions never overlap (the second skips).
Every step is idempotent (deterministic ids and paths; merging a claim that is already there
changes nothing), so a run killed at any instant is completed by the next run, with no event
lost or written twice. A model's output is data: every draft is validated (kind, folder,
sources) and written by braniac's own code, never outside memory/long_term/.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..infra import clock, git
from ..vault import notes, stm
from ..infra.errors import BraniacError, LockBusy, NoteError
from ..infra.fsio import atomic_write, append_line, locked, read_text, stale_temp_files, update_text
from ..search.index import update_after_write
from ..vault.folder_index import Entry
from ..vault.claims import Fact, FactNote, event_path, stable_uuid
from ..vault.folders import ensure_folder, refresh_indexes
from ..model.offline import OfflineModel
from .commits import WorkerCommits, commit_now, existing
from ..model.offline_promotion import relate
from ..model.types import Claim, EventRecord, NoteDraft
from ..vault.notes import slugify

if TYPE_CHECKING:
    from ..infra.config import Config
    from ..model import MemoryModel
    from ..vault.store import VaultStore

MAX_DRAFTS = 200
MAX_CLAIMS = 200
MAX_CLAIM_CHARS = 1500
MAX_DEPTH = 4
RESERVED = {"core-identity", "core_identity", "short-term", "short_term", "index", "_index", "access-log"}


@dataclass
class PromotionReport:
    status: str = "done"                  # done | skipped | nothing | dry-run
    reason: str = ""
    events: list[str] = field(default_factory=list)
    notes_created: list[str] = field(default_factory=list)
    notes_updated: list[str] = field(default_factory=list)
    claims: dict[str, int] = field(default_factory=lambda: {"added": 0, "strengthened": 0, "superseded": 0})
    rejected: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    plan: list[dict] = field(default_factory=list)
    commit: str | None = None

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def describe(self) -> str:
        """One line for a person (CLI, chat, watch)."""
        if self.status in ("skipped", "nothing"):
            return f"promotion {self.status}: {self.reason}"
        if self.status == "dry-run":
            return f"would promote {len(self.events)} events into {len(self.plan)} notes"
        c = self.claims
        return (f"promoted {len(self.events)} events: {len(self.notes_created)} new notes, "
                f"{len(self.notes_updated)} updated; claims {c['added']} added, {c['strengthened']} strengthened, "
                f"{c['superseded']} superseded" + (f"; commit {self.commit}" if self.commit else ""))


def promote(vault: "VaultStore", model: "MemoryModel", config: "Config", *, force: bool = False, dry_run: bool = False,
            notice: Callable[[str], None] = lambda m: None) -> PromotionReport:
    report = PromotionReport()
    try:
        with locked(vault.lock_path("ltm"), timeout=0, what="long-term memory"):
            return _promote(vault, model, config, report, force=force, dry_run=dry_run, notice=notice)
    except LockBusy:
        report.status, report.reason = "skipped", "another promotion or organization is running"
        return report


def idle_for(vault: "VaultStore") -> timedelta | None:
    """How long since the newest event in short-term memory (None when the log is empty)."""
    events = vault.read_stm().events
    if not events:
        return None
    try:
        newest = max(clock.parse_iso(e.id) for e in events)
    except ValueError:
        return None
    return clock.now() - newest


def _promote(vault, model, config, report, *, force, dry_run, notice) -> PromotionReport:
    with locked(vault.lock_path("stm"), what="short-term memory"):
        doc = vault.read_stm()
    events = [EventRecord(e.id, e.fields) for e in doc.events]
    if not events:
        report.status, report.reason = "nothing", "short-term memory has no events to promote"
        _commit_leftovers(vault, config, report)
        return report
    quiet = idle_for(vault)
    if not force and quiet is not None and quiet < timedelta(minutes=config.promote_idle_minutes):
        report.status = "skipped"
        report.reason = (f"not idle yet (last event {int(quiet.total_seconds())} s ago; promotion waits "
                         f"{config.promote_idle_minutes:g} min, or use --force)")
        return report
    report.events = [e.id for e in events]

    drafts = _drafts(vault, model, events, report, notice)
    if dry_run:
        report.status = "dry-run"
        report.plan = [{"kind": d.kind, "path": vault.relative(_note_path(vault, d)) if _note_path(vault, d).exists()
                        else str(_note_path(vault, d).relative_to(vault.root)), "title": d.title,
                        "claims": len(d.claims)} for d in drafts]
        return report

    written: set[Path] = set()
    _remove_stale_temp_files(vault)
    if config.git_autocommit and git.is_repo(vault.root):
        _checkpoint(vault)
    _journal(vault, report.events)
    uuid_paths = _uuid_paths(vault)
    if config.git_autocommit:
        # recorded before any write, so a run killed midway still gets its files committed later
        targets = {event_path(vault, e.id) for e in events} | {_target(vault, d, uuid_paths) for d in drafts}
        targets |= {event_path(vault, e.id).parent / "digest.md" for e in events} | {vault.stm_path}
        targets |= {folder / "_index.md" for t in list(targets) for folder in _folders_up(vault, t.parent)}
        WorkerCommits(vault, "promotion").remember(targets)
    for event in doc.events:
        _archive_event(vault, event, written)
    for draft in drafts:
        _write_note(vault, draft, drafts, uuid_paths, report, written)
    open_items, done_items = _structured(doc)
    _write_digests(vault, events, doc, done_items, written)
    # every folder this promotion writes to, not only those changed by this run: the re-run after
    # a kill between a note's write and its folder's _index.md finds the note already there
    folders = {p.parent for p in written} | {_target(vault, d, uuid_paths).parent for d in drafts}
    refresh_indexes(vault, folders | {event_path(vault, e.id).parent for e in events}, written)

    promoted_ids = set(report.events)

    def finalize(text: str) -> str:
        current = stm.parse(text)
        remaining = [EventRecord(e.id, e.fields) for e in current.events if e.id not in promoted_ids]
        summary = _summary(model, events, remaining, open_items, notice)
        current.remove_events(promoted_ids)
        _reset_structured(current, done_items)
        _set_summary(current, summary)
        return current.render()

    with locked(vault.lock_path("stm"), what="short-term memory"):
        update_text(vault.stm_path, finalize)
    written.add(vault.stm_path)
    vault.record_run("promotion")
    report.files = sorted(vault.relative(p) for p in written if p.exists())
    update_after_write(vault, written, notice)
    if config.git_autocommit and git.is_repo(vault.root):
        report.commit = _commit(vault, written, report)
    (vault.state_dir / "promotion" / "pending.json").unlink(missing_ok=True)
    return report


# ---------------------------------------------------------------------- the model's part

def _drafts(vault, model, events, report, notice) -> list[NoteDraft]:
    titles = _known_titles(vault)
    try:
        candidates = model.analyze(events, titles)
    except BraniacError as exc:
        notice(f"the model could not analyze the events ({exc}); using the offline engine's analysis")
        model = OfflineModel()
        candidates = model.analyze(events, titles)
    by_id = {e.id: e for e in events}
    drafts = []
    existing = _existing_folders(vault)
    for candidate in candidates[:MAX_DRAFTS]:
        # a topic that already has a note keeps it, wherever it lives (no duplicate note)
        found = existing.get((candidate.kind, slugify(candidate.title)))
        if found is not None:
            candidate.folder = found
        relevant = [by_id[i] for i in candidate.event_ids if i in by_id]
        if not relevant:
            _reject(vault, report, f"candidate '{candidate.title}' cites no event of this promotion")
            continue
        known_claims = _existing_claims(vault, candidate)
        try:
            draft = model.synthesize(candidate, relevant, known_claims)
        except BraniacError as exc:
            _reject(vault, report, f"candidate '{candidate.title}': {exc}")
            continue
        checked = validate(draft, set(by_id), vault, report)
        if checked is not None:
            drafts.append(checked)
    if len(candidates) > MAX_DRAFTS:
        _reject(vault, report, f"{len(candidates) - MAX_DRAFTS} candidates beyond the limit of {MAX_DRAFTS} were ignored")
    relate(drafts)
    return drafts


def _existing_claims(vault: "VaultStore", candidate) -> list[str]:
    """The current claims of the note a candidate would update, so the model can supersede them."""
    if candidate.kind not in ("concrete", "skills") or not all(isinstance(f, str) for f in candidate.folder):
        return []
    path = vault.ltm_root / candidate.kind / Path(*[slugify(f) for f in candidate.folder]) / f"{slugify(candidate.title)}.md"
    try:
        return [f.text for f in FactNote.load(path).facts()] if path.is_file() else []
    except NoteError:
        return []


def _existing_folders(vault: "VaultStore") -> dict[tuple[str, str], list[str]]:
    """(tier, note slug) -> folder below the tier, for every note already in concrete/ and skills/."""
    found: dict[tuple[str, str], list[str]] = {}
    for tier in ("concrete", "skills"):
        root = vault.ltm_root / tier
        for path in root.rglob("*.md") if root.is_dir() else ():
            if path.name != "_index.md":
                found.setdefault((tier, path.stem), list(path.parent.relative_to(root).parts))
    return found


def _known_titles(vault: "VaultStore") -> list[str]:
    """Titles of the concrete and skill notes already in long-term memory (from the index)."""
    try:
        from ..search.index import SearchIndex
        index = SearchIndex(vault)
        index.sync()
        titles = [f.get("title", "") for f in index.searcher().all_stored_fields()
                  if f.get("kind") in ("concrete", "skills")]
        index.close()
        return sorted(set(t for t in titles if t))
    except Exception:
        return []


def validate(draft: NoteDraft, event_ids: set[str], vault: "VaultStore", report: PromotionReport) -> NoteDraft | None:
    """Check a draft against the vault's bounds; reject (and log) rather than repair hostile parts."""
    if draft.kind not in ("concrete", "skills"):
        _reject(vault, report, f"'{draft.title}': kind {draft.kind!r} is not concrete or skills")
        return None
    for segment in draft.folder:
        if not isinstance(segment, str) or not segment.strip() or re.search(r"[/\\]|^\.|\.\.|^~|:", segment):
            _reject(vault, report, f"'{draft.title}': folder {draft.folder!r} is not a plain topic path")
            return None
    if len(draft.folder) > MAX_DEPTH:
        _reject(vault, report, f"'{draft.title}': folder {draft.folder!r} is deeper than {MAX_DEPTH}")
        return None
    title = " ".join(str(draft.title).split())[:120]
    if not title or re.search(r"[/\\]|\.\.", title) or slugify(title) in RESERVED or slugify(title).startswith("_"):
        _reject(vault, report, f"title {draft.title!r} is not allowed for a note")
        return None
    claims = []
    for claim in draft.claims[:MAX_CLAIMS]:
        sources = [s for s in claim.sources if s in event_ids]
        if not sources:
            _reject(vault, report, f"'{title}': a claim without a valid event citation was dropped")
            continue
        text = _defuse(" ".join(str(claim.text).split())[:MAX_CLAIM_CHARS].lstrip("#>-* "))
        if text:
            claims.append(Claim(text, sources, claim.supersedes))
    if not claims:
        return None
    draft.title = title
    draft.folder = [slugify(s) for s in draft.folder]
    draft.claims = claims
    draft.tags = [slugify(t) for t in draft.tags if isinstance(t, str) and slugify(t) != "note"][:8]
    draft.emotion = slugify(draft.emotion or "neutral").replace("-", "_")[:30] or "neutral"
    draft.summary = _defuse(re.sub(r"^[#>\s`~*_=-]+", "", " ".join(str(draft.summary).split())[:600]))
    return draft


def _reject(vault: "VaultStore", report: PromotionReport, reason: str) -> None:
    report.rejected.append(reason)
    log = vault.root / "logs" / "promotion.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    append_line(log, f"{clock.iso(clock.now())} | REJECTED | {reason}")


def _summary(model, promoted, remaining, open_items, notice) -> str:
    try:
        summary = _plain_paragraphs(model.summarize(promoted, remaining, open_items))
        if summary:
            return summary
        notice("the model's summary was empty; using the offline summary")
    except BraniacError as exc:
        notice(f"the model could not summarize ({exc}); using the offline summary")
    return OfflineModel().summarize(promoted, remaining, open_items)


def _plain_paragraphs(text: str) -> str:
    """A model's summary as plain paragraphs: a line that would read as a heading, a rule or a
    code fence could forge short-term-memory sections ("## Event Log", "### <id>") or hide the
    real ones, so those markers are taken off."""
    lines = []
    for line in str(text).replace("\r", "\n").split("\n"):
        line = re.sub(r"^(?:[#>`~]+|[-=*_]{3,})\s*", "", line.strip())
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip()


def _defuse(text: str) -> str:
    """One line of a claim or summary, with Markdown link brackets escaped: a model (or a pasted
    sentence) must not add links, e.g. a forged citation or one that leaves the vault."""
    text = re.sub(r"\\+(?=[\[\]])", "", " ".join(str(text).split()))  # so that escaping twice stays escaped
    return text.replace("[", "\\[").replace("]", "\\]")


# ---------------------------------------------------------------------- writing long-term memory

def _archive_event(vault: "VaultStore", event: stm.Event, written: set[Path]) -> None:
    """The raw event, verbatim, as episodic memory (refinement 1: promotion loses nothing)."""
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


def _note_path(vault: "VaultStore", draft: NoteDraft) -> Path:
    return vault.ltm_root / draft.kind / Path(*draft.folder) / f"{slugify(draft.title)}.md" if draft.folder else \
        vault.ltm_root / draft.kind / f"{slugify(draft.title)}.md"


def _uuid_paths(vault: "VaultStore") -> dict[str, Path]:
    """uuid -> path of long-term notes, from the search index's file list (fast), else a scan."""
    try:
        from ..search.index import SearchIndex
        index = SearchIndex(vault)
        index.sync()
        return {rec["u"]: vault.root / rel for rel, rec in index._load_files().items() if rec.get("u")}
    except Exception:
        return vault.uuid_map()


def _target(vault: "VaultStore", draft: NoteDraft, uuid_paths: dict[str, Path]) -> Path:
    """Where a draft's note is: found by its stable uuid (even if organization moved it), else
    its place in the hierarchy."""
    path = uuid_paths.get(_draft_uuid(draft))
    return path if path is not None and path.exists() else _note_path(vault, draft)


def _draft_uuid(draft: NoteDraft) -> str:
    return stable_uuid("note", "/".join([draft.kind, *draft.folder, slugify(draft.title)]))


def _folders_up(vault: "VaultStore", folder: Path) -> list[Path]:
    chain = []
    while folder.is_relative_to(vault.ltm_root):
        chain.append(folder)
        if folder == vault.ltm_root:
            break
        folder = folder.parent
    return chain


def _write_note(vault, draft: NoteDraft, drafts, uuid_paths, report, written) -> None:
    note_uuid = _draft_uuid(draft)
    path = _target(vault, draft, uuid_paths)
    if path.is_relative_to(vault.ltm_root / "archive") and path.exists():
        # an archived topic comes up again: it returns to the live hierarchy, links repaired
        from ..vault.moves import Move, apply_moves
        home = _note_path(vault, draft)
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
            _reject(vault, report, f"'{draft.title}': existing note is unreadable, left alone ({exc})")
            return
    before = note.render()
    for claim in draft.claims:
        outcome = note.merge(Fact(claim.text, list(claim.sources)), vault, supersedes=claim.supersedes)
        if outcome in report.claims:
            report.claims[outcome] += 1
    related = []
    for title in draft.related:
        other = next((d for d in drafts if d.title == title), None)
        if other is not None:
            related.append(Entry(other.title, _target(vault, other, uuid_paths), _draft_uuid(other)))
    if related:
        existing = {e.uuid for e in note.related}
        merged = note.related + [e for e in related if e.uuid not in existing]
        note.set_related(merged[:10])
    if note.render() == before:
        return
    note.note.set("sources", note.sources())
    if not created:
        note.note.touch()
    atomic_write(path, note.render())
    written.add(path)
    (report.notes_created if created else report.notes_updated).append(vault.relative(path))


def _structured(doc: stm.ShortTermMemory) -> tuple[list[str], list[str]]:
    open_items = [f"goal: {i.text}" for i in doc.items(stm.GOALS) if i.done is False] + \
                 [f"task: {i.text}" for i in doc.items(stm.TASKS) if i.done is False]
    done = [f"goal reached: {i.text}" for i in doc.items(stm.GOALS) if i.done] + \
           [f"task done: {i.text}" for i in doc.items(stm.TASKS) if i.done] + \
           [f"fact or decision: {i.text}" for i in doc.items(stm.FACTS)]
    return open_items, done


def _write_digests(vault, events: list[EventRecord], doc, done_items: list[str], written: set[Path]) -> None:
    """A digest per day of events: what happened, one cited line per event with substance,
    plus the completed tasks and decisions recorded from Structured Data."""
    from ..model.offline_promotion import is_claim, sentences, split_speaker
    by_day: dict[str, list[EventRecord]] = {}
    for event in events:
        by_day.setdefault(event.id[:10], []).append(event)
    last_day = max(by_day)
    for day, day_events in by_day.items():
        path = event_path(vault, day_events[0].id).parent / "digest.md"
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
                note.merge(Fact(_defuse(f"{event.id[11:16]} — {who}{gist}"), [event.id]), vault)
        if day == last_day:
            for item in done_items:
                cite = _best_event(item, events)
                if cite:
                    note.merge(Fact(_defuse(item), [cite]), vault)
        if note.render() != before:
            note.note.set("sources", note.sources())
            atomic_write(path, note.render())
            written.add(path)


def _best_event(text: str, events: list[EventRecord]) -> str | None:
    """The event a Structured Data line most likely came from (it becomes the citation)."""
    from ..infra import textutil
    words = set(textutil.content_words(text.split(":", 1)[-1]))
    best, score = None, 0.0
    for event in events:
        value = textutil.overlap(words, event.text)
        if value > score:
            best, score = event.id, value
    return best or (events[0].id if events else None)


# ---------------------------------------------------------------------- short-term memory reset

def _reset_structured(doc: stm.ShortTermMemory, done_items: list[str]) -> None:
    """Open goals and tasks carry over (refinement 2); completed ones and the key facts were
    recorded in the digest, so they leave the lists."""
    block = doc.block(stm.STRUCTURED)
    if block is None:
        return
    lines = block.raw.split("\n")
    kept, section = [], None
    for line in lines:
        if line.startswith("### "):
            section = line[4:].strip()
        item = stm._ITEM.match(line)
        if item and not item["indent"] and item["text"]:
            if section == stm.FACTS or (section in (stm.GOALS, stm.TASKS) and item["mark"] and item["mark"].lower() == "x"):
                continue
        kept.append(line)
    block.raw = "\n".join(kept)


def _set_summary(doc: stm.ShortTermMemory, summary: str) -> None:
    block = doc.block(stm.SUMMARY)
    if block is None:
        doc.blocks.insert(1 if doc.blocks and doc.blocks[0].name is None else 0,
                          stm.Block(stm.SUMMARY, f"## {stm.SUMMARY}\n{summary.strip()}\n\n---\n"))
        return
    rule = "\n---\n" if re.search(r"\n-{3,}\s*$", block.raw.rstrip() + "\n") else "\n"
    block.raw = f"## {stm.SUMMARY}\n{summary.strip()}\n{rule}"


# ---------------------------------------------------------------------- bookkeeping

def _remove_stale_temp_files(vault: "VaultStore") -> None:
    """Temp files a killed promotion left in long-term memory. Every writer of memory/long_term/
    holds the LTM lock, which this run holds, so none of them is being written now; left alone
    they would show up in `git status` (and in a person's `git add -A`)."""
    for temp in stale_temp_files(vault.ltm_root):
        temp.unlink(missing_ok=True)


def _journal(vault: "VaultStore", event_ids: list[str]) -> None:
    path = vault.state_dir / "promotion" / "pending.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"events": event_ids, "started": clock.iso(clock.now())}))


def _commit(vault: "VaultStore", written: set[Path], report: PromotionReport) -> str | None:
    created = ", ".join(Path(p).stem for p in report.notes_created[:8])
    message = (f"braniac: promote {len(report.events)} events into long-term memory\n\n"
               + (f"New notes: {created}\n" if created else "")
               + (f"Updated notes: {len(report.notes_updated)}\n" if report.notes_updated else "")
               + f"Claims: {report.claims['added']} added, {report.claims['strengthened']} strengthened, "
                 f"{report.claims['superseded']} superseded\n"
               + f"Events: {report.events[-1]} … {report.events[0]}\n")
    return WorkerCommits(vault, "promotion").commit(written, message)


def _checkpoint(vault: "VaultStore") -> None:
    """Reflection never commits, so the events a promotion consumes are usually only in the
    working tree: commit short_term.md as it is now (with any files a killed run left
    uncommitted) before writing anything, so that `git revert` of the promotion's own commit
    brings the events back into short-term memory instead of losing them."""
    commits = WorkerCommits(vault, "promotion")
    leftovers = commits.recorded()
    message = ("braniac: finish an interrupted promotion" if leftovers is not None
               else "braniac: short-term memory before promotion")
    commit_now(vault, existing({vault.stm_path} | (leftovers or set())), message)
    commits.clear()


def _commit_leftovers(vault: "VaultStore", config: "Config", report: PromotionReport) -> None:
    """A run killed before its commit left files uncommitted; the next run commits them."""
    commits = WorkerCommits(vault, "promotion")
    if commits.pending.exists() and config.git_autocommit and git.is_repo(vault.root):
        leftovers = commits.recorded()
        if leftovers is None:
            return
        report.commit = commit_now(vault, existing(leftovers), "braniac: finish an interrupted promotion") or report.commit
        commits.clear()
