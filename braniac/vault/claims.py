"""Claims: the facts braniac writes into long-term notes, the archived events they cite, and
the stable ids that make writing them again change nothing.

Notes written by braniac keep their claims in a `## Facts` list, one claim per bullet, each
ending with links to the archived events it came from:

    - 2025-03-02: Ana moved to Lisbon. ([2025-03-02T10:00:00Z](../../events/2025/03/02/2025-03-02T10-00-00Z.md))

Merging is idempotent: a claim already present only gains a citation; a claim that
contradicts one in place (another value of the same thing: `compare`) moves the old one, dated
and cited, to `## History`.
"""
from __future__ import annotations

import re
import uuid as uuidlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..infra import clock, textutil
from ..infra.textutil import unmentioned  # noqa: F401  (promotion's, beside stated_values)
from ..infra.relative_times import past_days, without_resolutions
from . import folder_index, notes, relations
from .folder_index import Entry
from .links import ANY_LINK, find_links, make_link
from .layout import event_rel, is_event_id
from .notes import Note

if TYPE_CHECKING:
    from .store import VaultStore

NAMESPACE = uuidlib.UUID("6f1c9a1e-8a55-4c1e-9b7e-0b3e6f0d2a11")  # braniac's, for deterministic ids
FACTS, HISTORY = "Facts", "History"
_CITATIONS = re.compile(rf"\s*\(({ANY_LINK}(?:,\s*)?)+\)\s*$")


def stable_uuid(*parts: str) -> str:
    """The same uuid for the same thing every run: a re-run after a crash rewrites, never duplicates."""
    return str(uuidlib.uuid5(NAMESPACE, "\x1f".join(parts)))


def event_path(vault: "VaultStore", event_id: str) -> Path:
    """Where an archived event lives (`layout.event_rel`), confined to events/: UnsafePath for
    anything but an event id, or a day folder a symlink leads out of the vault."""
    return vault.confined(event_rel(event_id), within=vault.ltm_root / "events")


# ---------------------------------------------------------------------- facts and citations

@dataclass
class Fact:
    text: str
    sources: list[str] = field(default_factory=list)   # event ids


def citation(from_file: Path, vault: "VaultStore", event_ids: Iterable[str]) -> str:
    style = vault.link_style
    links = [make_link(eid, from_file, event_path(vault, eid), None, style) for eid in dict.fromkeys(event_ids)]
    return f"({', '.join(links)})" if links else ""


def stated(text: str) -> str:
    """What a text states: a claim's words, without its bullet and citations, when its first
    line is a claim; otherwise the text itself."""
    fact = parse_fact(text.split("\n", 1)[0])
    return fact.text if fact is not None else text


def parse_fact(line: str) -> Fact | None:
    if folder_index.indented(line):
        return None   # an indented line is the person's note under a claim, no claim of its own
    stripped = line.strip()
    if not stripped.startswith(("- ", "* ")):
        return None
    body = stripped[2:]
    match = _CITATIONS.search(body)
    sources: list[str] = []
    if match:
        sources = [l.text for l in find_links(match.group(0)) if is_event_id(l.text)]
        body = body[: match.start()]
    return Fact(body.strip(), sources)


def render_fact(fact: Fact, note_path: Path, vault: "VaultStore") -> str:
    cite = citation(note_path, vault, fact.sources)
    return f"- {fact.text} {cite}".rstrip()


class FactNote:
    """A concrete or skill note as braniac writes it: sections split like `_index.md`, with
    `## Facts` (current claims) and `## History` (superseded ones) under braniac's care and
    every other section left exactly as a person wrote it."""

    def __init__(self, note: Note, path: Path):
        self.note, self.path = note, path
        self.sections = folder_index.split_sections(note.body)

    @classmethod
    def create(cls, path: Path, *, title: str, summary: str, tags: list[str], emotion: str,
               note_uuid: str, extra: dict | None = None) -> "FactNote":
        intro = f"{summary.strip()}\n\n" if summary.strip() else ""
        note = Note.new(title=title, body=f"# {title}\n\n{intro}", tags=tags, emotion=emotion,
                        note_uuid=note_uuid, extra={"sources": [], **(extra or {})})
        return cls(note, path)

    @classmethod
    def load(cls, path: Path) -> "FactNote":
        return cls(notes.read(path), path)

    def _get(self, name: str) -> list[str]:
        for heading, raw in self.sections:
            if heading == name:
                lines = raw.split("\n")[1:]
                while lines and not lines[-1].strip():
                    lines.pop()  # the blank lines that close a section are layout, not content
                return lines
        return []

    def _set(self, name: str, lines: list[str]) -> None:
        folder_index.set_section(self.sections, name, "\n".join(lines))

    def facts(self, section: str = FACTS) -> list[Fact]:
        return [f for f in (parse_fact(l) for l in self._get(section)) if f is not None]

    def merge(self, new: Fact, vault: "VaultStore", *, supersedes: str | None = None, log: bool = False) -> str:
        """Add one claim. Returns 'added', 'strengthened', 'superseded' or 'unchanged'. In a
        `log` (a day's digest: one line per thing that happened; a skill's steps) nothing is
        superseded."""
        lines = self._get(FACTS)
        for i, line in enumerate(lines):
            old = parse_fact(line)
            if old is None:
                continue
            if old.text == new.text or compare(old, new) == SAME:
                missing = [s for s in new.sources if s not in old.sources]
                if not missing:
                    return "unchanged"
                old.sources += missing  # a restated claim strengthens the one in place
                lines[i] = render_fact(old, self.path, vault)
                self._set(FACTS, lines)
                return "strengthened"
        # a claim already superseded (in History, citing the same events) stays there: merging it
        # again, as the re-run after a killed promotion does, must not bring it back
        for old in self.facts(HISTORY):
            base = Fact(SUPERSEDED_ON.sub("", old.text))
            if (base.text == new.text or compare(base, new) == SAME) and set(new.sources) <= set(old.sources):
                return "unchanged"
        replaced = None
        for i, line in enumerate(lines):
            old = parse_fact(line)
            if log or old is None or not old.sources:
                # a claim the person typed without a citation has no day to be older or newer
                # than: it stays as they wrote it, and the new claim goes beside it
                continue
            if supersedes and (old.text == supersedes or compare(old, Fact(supersedes)) == SAME) \
                    or compare(old, new) == CHANGED or contradicts(old, new):
                replaced = i
                break
        status = "added"
        if replaced is not None and new.sources and _latest(new.sources) < _latest(parse_fact(lines[replaced]).sources):
            # an older claim arriving after a newer one (claims merged out of order): it goes
            # straight to History, superseded by the claim in place
            current = parse_fact(lines[replaced])
            history = self._get(HISTORY)
            history.append(render_fact(Fact(f"{new.text} — superseded on {current.sources[0][:10]}", new.sources),
                                       self.path, vault))
            self._set(HISTORY, history)
            return "superseded"
        if replaced is not None:
            end = _under(lines, replaced)
            old, notes_under = parse_fact(lines[replaced]), lines[replaced + 1:end]
            del lines[replaced:end]   # the person's notes under the claim go with it
            since = new.sources[0][:10] if new.sources else clock.iso(clock.now())[:10]
            history = self._get(HISTORY)
            history.append(render_fact(Fact(f"{old.text} — superseded on {since}", old.sources), self.path, vault))
            history += notes_under
            self._set(HISTORY, history)
            status = "superseded"
        last = max((i for i, l in enumerate(lines) if parse_fact(l)), default=None)
        insert_at = len(lines) if last is None else _under(lines, last)   # after the last claim and its notes
        lines.insert(insert_at, render_fact(new, self.path, vault))
        self._set(FACTS, lines)
        return status

    @property
    def related(self) -> list[Entry]:
        return folder_index.related_entries(self.sections, self.path)

    def set_related(self, entries: list[Entry]) -> None:
        folder_index.set_related(self.sections, self.path, entries)

    def sources(self) -> list[str]:
        found = [s for section in (FACTS, HISTORY) for f in self.facts(section) for s in f.sources]
        return list(dict.fromkeys(found))

    def render(self) -> str:
        self.note.body = folder_index.join_sections(self.sections)
        return self.note.render()


def _under(lines: list[str], i: int) -> int:
    """Where the lines under the claim at lines[i] end: the indented ones right after it (a
    person's sub-bullet, task or quote about that claim)."""
    end = i + 1
    while end < len(lines) and folder_index.indented(lines[end]):
        end += 1
    return end


SUPERSEDED_ON = re.compile(r"\s+—\s+superseded on (\d{4}-\d{2}-\d{2})\b")   # a History line's mark, and its day


def _latest(sources: list[str]):
    """When the newest of a claim's events happened (a claim citing none counts as now)."""
    moments = []
    for source in sources:
        try:
            moments.append(clock.parse_iso(source))
        except ValueError:
            continue
    return max(moments) if moments else clock.now()


def _similar(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> bool:
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= 0.8


SAME, CHANGED, MORE, OTHER = "same", "changed", "more", "other"
MIN_SHARED_CONTEXT = 2   # words the two statements share besides their values: what makes them one thing


def compare(old: Fact, new: Fact) -> str:
    """How a new claim stands to one in place. The values each states (numbers, dates, names,
    amounts, versions, addresses, quoted strings: `textutil.values`) are set apart from the
    words around them, which say what the claim is about; those must agree (80% of the stemmed
    content words) for the two to be about one thing. Then:

    - SAME: the new one states no value the old one does not mention (a restatement; it may
      leave out a detail);
    - CHANGED: each states a value the other does not ("the port is 8080" / "the port is
      9090"): the newer value supersedes;
    - MORE: the new one adds a value and drops none (a more precise claim, kept beside);
    - OTHER: they are about different things, among them the same words resolved to two days
      of the past ("on Saturday (2025-02-22)" / "on Saturday (2025-03-01)": two occasions)."""
    a, b = _read(old.text), _read(new.text)
    if a.subjects and b.subjects and not a.subjects & b.subjects:
        # "Ana visited Faro and spent 90 euros" / "Rui visited Madrid…", "My cat Luna is 3" /
        # "My cat Milo is 5": whose it is says which thing; a name is a value only after it
        return OTHER
    # what they share can only shrink once values are set apart: most pairs end here, cheaply
    if len(a.stems & b.stems) < 0.8 * max(len(a.stems) - a.value_stems, len(b.stems) - b.value_stems, 1):
        return CHANGED if _said_changed(a, b) else OTHER
    only_old, only_new = a.unmentioned_in(b), b.unmentioned_in(a)
    context_old, context_new = a.context(only_old), b.context(only_new)
    if not _similar(context_old, context_new):
        return CHANGED if _said_changed(a, b) else OTHER
    if not only_new:
        days_old, days_new = past_days(old.text), past_days(new.text)
        # "I went to the gym on Saturday" said in two weeks: two Saturdays, two claims
        return OTHER if days_old and days_new and days_old != days_new else SAME
    if only_old and len(context_old & context_new) >= MIN_SHARED_CONTEXT:
        return CHANGED
    return MORE


# words by which a newer statement says a value is not the old one any more
_CHANGE_SAID = re.compile(r"\b(?:now|moved|changed|switched|updated|instead|no longer|anymore|any more|became|"
                          r"has become|from now on)\b")


def _said_changed(a: "_Read", b: "_Read") -> bool:
    """A newer statement worded differently that says its value changed: "The staging database
    moved: it now runs on port 5433" after "The staging database for braniac runs PostgreSQL on
    port 5432". Each states a value the other does not, after the same word ("port"), the two
    share half their other words, the newer one says it changed ("now", "moved", "switched"…)
    and names nothing the older one does not (it may leave details out): the room of another
    team is another thing, not a changed value."""
    if not _CHANGE_SAID.search(b.lowered):
        return False
    only_old, only_new = a.unmentioned_in(b), b.unmentioned_in(a)
    if not only_old or not only_new:
        return False
    said = {textutil.stem(w) for w in textutil.content_words(_CHANGE_SAID.sub(" ", b.lowered))}
    if b.context(only_new) & said - a.stems:
        return False
    shared = a.stems & b.stems
    if len(shared) < MIN_SHARED_CONTEXT + 1 or \
            2 * len(shared) < min(len(a.stems) - a.value_stems, len(b.stems) - b.value_stems):
        return False
    return bool(_keys(a, only_old) & _keys(b, only_new) & shared)


def _keys(r: "_Read", values: set[str]) -> set[str]:
    """The stemmed word right before each of these values ("port" in "on port 5432")."""
    found = set()
    for value in values:
        for match in re.finditer(rf"(\w+)\W{{1,3}}{re.escape(value)}(?!\w)", r.lowered):
            found.add(textutil.stem(match.group(1)))
    return found


@dataclass(frozen=True)
class _Read:
    """A claim's text read once for comparisons (claims are compared with every line of a note)."""
    lowered: str
    values: frozenset[str]
    mentions: frozenset[str]       # every word and value: what the text mentions
    stems: frozenset[str]          # stemmed content words
    value_stems: int               # how many of those belong to values
    subjects: frozenset[str]       # the names it is about (subjects)

    def unmentioned_in(self, other: "_Read") -> set[str]:
        return {v for v in self.values if v not in other.mentions and not (" " in v and v in other.lowered)}

    def context(self, differing: set[str]) -> frozenset[str]:
        """The stemmed content words without the values this claim alone states."""
        if not differing:
            return self.stems
        return _context(self.lowered, frozenset(differing))


@lru_cache(maxsize=16384)
def _context(lowered: str, differing: frozenset[str]) -> frozenset[str]:
    """(A claim is compared with every line of its note, and mostly differs from them all by
    the same values: its context is worked out once.)"""
    for value in differing:
        lowered = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", lowered)
    return frozenset(textutil.stem(w) for w in textutil.content_words(lowered))


@lru_cache(maxsize=16384)
def _read(text: str) -> _Read:
    plain = as_said(text)
    found = textutil.values(plain)
    stems = frozenset(textutil.stem(w) for w in textutil.content_words(plain))
    in_values = {textutil.stem(w) for v in found for w in textutil.words(v)}
    return _Read(plain.lower(), found, frozenset(textutil.words(plain)) | found, stems, len(stems & in_values),
                 subjects(plain))


# a name the person's own word for someone or something goes with: "my cat Luna", "my sister Ana"
_NAMED_AFTER = re.compile(r"\b(?i:my|our|his|her|their)\s+(?:[a-z]+\s+){0,2}?([A-Z][\w'’-]*)")
# what may stand before the name a statement opens with: a speaker's label, a time, a connective
# ("Then Ana visited…", "Yesterday, Rui moved…"); never a subject and its verb ("We use Slack")
_OPENING = re.compile(r"^\W*(?:(?:then|yesterday|today|tonight|so|and|but|also|later|now|meanwhile|anyway|well|"
                      r"oh|ok|okay|finally|actually|apparently|sadly|luckily)\W+){0,2}$", re.I)


def subjects(plain: str) -> frozenset[str]:
    """The names a statement is about: one it opens with ("Ana visited Faro", "Caroline: I went…")
    and one put after the person's word for someone ("my cat Luna"); each by its first word."""
    names = textutil.entities(plain)
    firsts = {n.split()[0] for n in names}
    opening = min(names, key=plain.find, default="")
    found = {opening.split()[0]} if opening and _OPENING.match(plain[:plain.find(opening)]) else set()
    found |= {m.group(1) for m in _NAMED_AFTER.finditer(plain)} & firsts
    return frozenset(found)


def stated_values(text: str) -> frozenset[str]:
    """The values a claim states (`textutil.values`), the date that opens it left out."""
    return _read(text).values


def alike(words_a: frozenset[str] | set[str], words_b: frozenset[str] | set[str]) -> bool:
    """Could two statements be one thing in other words? They share half the (stemmed content)
    words of the shorter: then "is" says one value of it ("My manager is Priya" / "Priya left;
    my new manager is Tom"), where unlike statements compare only where someone lives or works."""
    return 2 * len(words_a & words_b) >= min(len(words_a), len(words_b))


def contradicts(old: Fact, new: Fact, *, one_value_only: bool = False) -> bool:
    """The same subject and relation with a different value ("Ana lives in Porto" / "Ana
    lives in Lisbon"): the newer claim supersedes, the older goes to History (`relations`)."""
    return relations.contradicts(as_said(old.text), as_said(new.text), one_value_only=one_value_only)


# the history braniac appends to a decision that changed (key_facts.py): what it replaced is not
# what it says now ("… going with SQLite for the app (was: use Postgres for the app until 2025-03-20)")
_WAS = re.compile(r"\s*\(was: [^()]*? until \d{4}-\d{2}-\d{2}[^()]*\)")


@lru_cache(maxsize=16384)
def as_said(text: str, *, keep_ahead: bool = False) -> str:
    """What a claim says, as the person said it (`keep_ahead`: relative_times.without_resolutions)."""
    # claims open with their date, "2025-03-02: …" or (the offline engine's) "2025-03-02 — …"
    # and what was said is compared, not the days braniac resolved its relative times to; a
    # skill's "Step 3:" is a place in a list, not a value that a "Step 5:" changes
    text = _WAS.sub("", without_resolutions(text, keep_ahead=keep_ahead))
    return re.sub(r"^(?:\d{4}-\d{2}-\d{2}(?::|\s+[—–-])|step \d+:)\s*", "", text, flags=re.I).strip().rstrip(".")
