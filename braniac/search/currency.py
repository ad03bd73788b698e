"""The current value wins: of two passages that state different values of one thing ("the
staging port is 8080" / "… is 9090"), the one resting on the later event ranks above the other,
and the older one is labelled as history, with the date its value stopped being current.

What counts as "one thing, another value" is `vault.claims`' own reading (`compare` gives
CHANGED, or `contradicts`), the rule promotion uses to supersede a claim into a note's History;
a claim already in a History (` — superseded on DATE`) is history by its own words. So the
archived events, the day's digest and the notes that still quote an old value all give way to
the newest statement, and an answer built from the working memory can say "now X (was Y until
DATE)". Long messages that state a number among many other things are read against the
question instead: each states a number the other lacks, both hold enough of its words, and the
newer says it changed ("now", "increased to", "the new May 25 deadline") or restates the number
in the same words ("secured 3 interviews" / "secured 5 interviews": vault/value_changes.py). A
decision taken back needs no number: "I changed my mind: the shed will be larch, cedar is too
expensive" replaces "I decided to use cedar boards for the shed", the two naming the thing asked
about and the value given up (vault/reversals.py).
"""
from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from ..vault import claims, relations, stm
from ..vault.corrections import corrects
from ..vault.parting import says_given_up
from ..vault.value_changes import SAID_ALONE_WORDS, replaced_for_the_question
from ..vault.word_changes import restated
from ..vault.written import last_written
from ..vault.layout import LONG_TERM, event_order, newest_event
from .documents import kind_of
from .passages import Passage

CURRENCY_POOL = 24        # the best passages compared with each other (the top of the context; pairs: n²/2)
GIVEN_UP_POOL = 8          # passages that may replace another, compared though they match no word
HISTORY_LABEL = "_(history — superseded on {date})_"   # the words a History line ends with
_CLOCK = re.compile(r"^\d{2}:\d{2}\s+[—–-]\s+")        # a digest line opens with the event's time


def may_replace(said: str) -> bool:
    """Could a statement replace an older one though it holds no word of the question? Parting
    with a thing ("I sold the Civic"), or where the person lives or works now ("I moved to Porto")."""
    return says_given_up(said) or relations.persons_relation(said) is not None


def statement(text: str) -> str:
    """What a passage's text states: the person's words of an archived event (never the AI's
    answer); a claim's text without its citations, its History mark or a digest line's time (a
    topic note's claim keeps the date it opens with, which claims' own rules read)."""
    if text.startswith("### "):
        heading, _, _ = text.partition("\n")
        return stm.Event(heading[4:].strip(), text).fields.get("User", "")   # quotes, "> " lines decoded
    return _CLOCK.sub("", claims.SUPERSEDED_ON.sub("", claims.stated(text)))


def rank_current(passages: list[Passage], asked: frozenset[str] = frozenset(),
                 measured: frozenset[str] = frozenset(), root: Path | None = None) -> None:
    """Reorder and label in place (see the module's docstring). `asked`: the question's own
    terms; two long statements that both answer it, each with a number the other lacks, the
    newer one saying it changed or restating the count, are one thing with a new value
    (vault/value_changes.py). `measured`: the measures it asks for (infra/measures.py), of
    which a newer value said to have changed replaces the older ("Down to 79 kg now"). `root`:
    the vault's, to date a claim the person corrected by hand (_corrected)."""
    _bring_replacements(passages)
    # the best statements: those resting on events, and the lines of notes the person keeps
    best = sorted((p for p in passages if p.score > 0 and (p.cites or root is not None and kind_of(p.path) == "other")),
                  key=lambda p: -p.score)[:CURRENCY_POOL]
    cited = [newest_event(p.cites) for p in best if p.cites]
    # (git is asked when a note's file says it is newer than what was said: maybe a checkout's date)
    oldest = min(cited, key=event_order) if cited else None
    own = written([p for p in best if not p.cites], root, oldest)
    dated = {id(p): newest_event(p.cites) if p.cites else own.get(p.path) for p in best}
    best = [p for p in best if dated[id(p)]]
    # "I sold the Civic" holds no word of "what car do I drive?", nor "I moved to Porto" of
    # "where do I live?": they join the comparison
    best += [p for p in passages if p.score <= 0 and p.cites and may_replace(statement(p.text))][:GIVEN_UP_POOL]
    if len(best) < 2:
        return
    when = [dated.get(id(p)) or newest_event(p.cites) for p in best]
    order = sorted(range(len(best)), key=lambda i: event_order(when[i]))   # oldest first: a later one can replace it
    best, when = [best[i] for i in order], [when[i] for i in order]
    facts = [claims.Fact(statement(p.text)) for p in best]
    until: dict[int, str] = {}                            # index in best -> the day it was superseded
    for i, p in enumerate(best):
        marked = claims.SUPERSEDED_ON.search(p.text)
        if marked:
            until[i] = marked.group(1)
    edges: list[tuple[int, int]] = []                     # (older, newer) statements of one thing
    restatements: list[tuple[int, int]] = []              # (older, newer) values of one thing, no change read
    # what a statement that replaced another speaks of: its words and those of what it replaced
    # ("My doctor raised the lisinopril to 20 mg" is the "I take 10 mg of lisinopril" it replaced,
    # so "…lowered my lisinopril to 15 mg" replaces it in turn, though it never says "take"); and
    # what a short statement says alone ("slipped to June 15", then "now July 1": June 1's "1" is no
    # value of it; a long message says many things, and alone it would replace too much: BEAM -2.8 at 300 words in one chat)
    thing = [f.text for f in facts]
    for i, old in enumerate(best):
        if not facts[i].text:
            continue
        for j in range(i + 1, len(best)):
            new = best[j]
            # a note the person keeps is dated "written no later than" (written()): what it says may
            # have been superseded since, but it supersedes nothing
            if event_order(when[j]) <= event_order(when[i]) or not facts[j].text or not new.cites:
                continue
            # one thing in other words shares most of its words (compare wants 80 %): cheap to rule out
            alike = claims.alike(old.words, new.words)
            # (where someone lives or works needs no shared words: "Ana lives in Porto" / "Ana moved to Lisbon")
            if alike and claims.compare(facts[i], facts[j]) == claims.CHANGED \
                    or claims.contradicts(facts[i], facts[j], one_value_only=not alike) \
                    or replaced_for_the_question(thing[i], facts[j].text, asked, measured) \
                    or thing[i] != facts[i].text and len(facts[i].text.split()) <= SAID_ALONE_WORDS \
                    and replaced_for_the_question(facts[i].text, facts[j].text, asked, measured):
                edges.append((i, j))
                thing[j] += " " + thing[i] if thing[i] not in thing[j] else ""
                until[i] = min(until.get(i, when[j][:10]), when[j][:10])
            elif old.words & new.words & asked and restated(facts[i].text, facts[j].text, asked):
                restatements.append((i, j))
    if root is not None:
        _corrected(best, facts, root, edges, until)
    # another value that no rule reads as a change: the newer first, neither labelled
    for i, j in restatements:
        if i not in until and j not in until and best[j].score <= best[i].score:
            best[j].score = best[i].score * 1.001 + 1e-9
    if not until:
        return
    # older first: each newer statement rises just above every older one it replaces
    for i, j in edges:
        if best[j].score <= best[i].score:
            best[j].score = best[i].score * 1.001 + 1e-9
    old_events: dict[str, list[tuple[frozenset[str], str]]] = {}
    for i, day in until.items():
        if best[i].event:
            old_events.setdefault(best[i].event, []).append((best[i].words, day))
    labelled = {id(best[i]): day for i, day in until.items()}
    # every passage that holds an old statement is labelled, not only the ones compared: the
    # fullest passage of an event takes the place of its parts when the excerpts are chosen
    for p in passages:
        day = labelled.get(id(p))
        if day is None and p.event in old_events:
            day = min((d for words, d in old_events[p.event] if words <= p.words), default=None)
        if day and not claims.SUPERSEDED_ON.search(p.text) and HISTORY_LABEL.format(date=day) not in p.text:
            p.text = _labelled(p.text, day)


def written(passages: list[Passage], root: Path | None, after: str | None = None) -> dict[str, str]:
    """path -> when each note the person keeps themselves (a folder of their own, a note that
    cites no event) among these passages' was written at the latest, as an event id is spelled:
    "rent is 900" in their finances note gives way to a later "now I pay 1,050"
    (vault/written.py). Git's word is asked only when a file's own dates are later than the
    event id `after`."""
    rels = [p.path for p in passages if not p.cites and kind_of(p.path) == "other"]
    if root is None or not rels:
        return {}
    git_after = datetime.fromisoformat(after[:19] + "+00:00") if after else None
    return {rel: when.strftime("%Y-%m-%dT%H:%M:%SZ")
            for rel, when in last_written(root, rels, git_after=git_after).items()}


def _corrected(best: list[Passage], facts: list[claims.Fact], root: Path, edges: list[tuple[int, int]],
               until: dict[int, str]) -> None:
    """A claim that gives another value than the very event it cites was corrected by the person
    in their note ("staff engineer" where they had said "backend engineer"): the note is the
    truth now, and the event what was said then, history from the day the note was last written."""
    for j, claim in enumerate(best):
        if claim.text.startswith("### ") or not facts[j].text or claim.path.startswith(f"{LONG_TERM}/events/"):
            continue   # a digest's line is braniac's own wording of the event, never the person's
        for i, said in enumerate(best):
            if said.text.startswith("### ") and said.event in claim.cites and facts[i].text and \
                    corrects(facts[i].text, facts[j].text):
                when = last_written(root, [claim.path]).get(claim.path)
                if when is None:
                    continue
                day = when.date().isoformat()
                edges.append((i, j))
                until[i] = min(until.get(i, day), day)


def _bring_replacements(passages: list[Passage]) -> None:
    """A History line that matches says the day it was superseded; the claim of the same note
    from that day that gives another value of where someone lives or works replaced it ("Ana
    moved to Lisbon" for "My sister Ana lives in Porto"), and comes along with its score, though
    it holds none of the question's words. (Any claim of that day: LoCoMo dev -1.5 / -1.0 / -0.6,
    multi-hop -2.7 at 750 words.)"""
    by_note: dict[str, list[Passage]] = {}
    for p in passages:
        by_note.setdefault(p.path, []).append(p)
    for old in [p for p in passages if p.score > 0]:
        marked = claims.SUPERSEDED_ON.search(old.text)
        if marked is None:
            continue
        day, was = marked.group(1), claims.Fact(statement(old.text))
        for new in by_note[old.path]:
            if new.score < old.score and new.cites and not claims.SUPERSEDED_ON.search(new.text) and \
                    (newest_event(new.cites)[:10] == day or new.text.startswith(f"- {day} ")) and \
                    claims.contradicts(was, claims.Fact(statement(new.text)), one_value_only=True):
                new.score = old.score


def _labelled(text: str, day: str) -> str:
    label = HISTORY_LABEL.format(date=day)
    if text.startswith("### "):        # an archived event keeps its heading first: it names itself
        heading, _, rest = text.partition("\n")
        return f"{heading}\n{label}\n{rest}"
    return f"{text}\n{label}"
