"""From search queries to the long-term-memory excerpts that enter the working memory.

1. Each query is searched; the result lists are merged by reciprocal rank fusion (a note found
   by several queries rises).
2. The notes found are cut into passages (see passages.py): one claim (a bullet), one archived
   event, or one paragraph, each keeping the citations it carries.
3. Passages are ranked against the query terms across all those notes (BM25: words weighted by
   how rare they are in the pool, so a name that is everywhere counts little; the prompt's own
   words above words a query added), with the note's own rank as a prior, so the passage that
   answers wins over the first lines of a big note. With an embedding model configured, a
   passage's closeness in meaning to the prompt is added (meaning.py), so evidence worded
   otherwise can rise. The words the best passages share are then added to the terms, lightly
   (pseudo-relevance feedback), and the pool is ranked again.
4. Spreading activation along the conversation: an answer often makes sense only with the
   question before it ("Since I was 17." after "How long have you been painting?"). The events
   archived just before and after the strongest hits are pulled in, and an event is lifted by
   a matching question right before it and, less, by a matching event right after it. A
   follow-up question ("What games did you play?" after "I had a picnic with friends from
   church, we played games") carries the match of what it follows up on to its answer, two
   turns after one of the three best hits.
5. A prompt that names a time ("in May 2023", "on 13 October", "last week") lifts the passages
   whose events happened then; one that asks a measure ("How much do I weigh?") lifts those that
   give it in its unit ("Down to 79 kg now").
6. What the person asked for once and for all ("Always use APA style when I ask about
   references", "I prefer minimal dependencies") rises when it matches, and comes first when
   the prompt meets the condition it names ("…when I ask about references") (standing.py).
7. The current value wins: of two passages stating different values of one thing (or taking a
   decision back, or parting with a thing: the named things the best passages say the person
   has are searched for a "sold"), the later ranks above; the older is labelled history, dated
   (currency.py).
8. A question about two things ("how many days between A and B", "…, and what…") has each
   part's best passage placed right behind the best of all (parts.py). A yes-or-no question
   ("Have I ever worked with Flask routes?") has the best statement of the other side ("I've
   never written any routes") placed there too (sides.py).
9. Each memory enters once (distinct.py): the same claim kept in an entity note, a topic note,
   a digest and the events archive; and a long answer of the assistant enters as its window
   that matches the prompt (excerpts.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Sequence

from ..infra import clock, measures, textutil
from ..infra.date_spans import date_spans
from ..model.types import Excerpt
from ..vault.layout import SHORT_TERM, event_rel
from .currency import rank_current, statement, written
from .day_events import day_events, event_folder
from .documents import answers
from .replacements import bring_replacements
from .distinct import distinct
from .focus import lift_speakers
from .parts import lift_parts
from .sides import lift_sides
from .passages import MAX_PASSAGE_CHARS, Passage, content_terms, event_passages, is_exchange, matches, note_passages
from .periods import DAY_FLOOR, lift_periods
from .standing import lift_applying, lift_standing

if TYPE_CHECKING:
    from .index import SearchIndex
    from .meaning import Meaning
    from ..vault.store import VaultStore

RRF_K = 60
PER_QUERY = 30            # hits taken from each query
POOL = 40                 # notes whose passages are ranked
NOTE_PRIOR = 4.0          # weight of the note's fused rank against the passage's own match
ADDED_TERM = 0.5          # weight of a term a query added (context for a pronoun, a related word)
FEEDBACK_WEIGHT = 0.2     # weight of a term taken from the best passages (pseudo-relevance feedback)
FEEDBACK_PASSAGES = 5
FEEDBACK_TERMS = 10
SPREAD_EVENTS = 30        # the strongest events whose neighbours are pulled in
AFTER_QUESTION = 0.5      # lift of an event by the match of the question right before it
BEFORE_EVENT = 0.3        # lift of an event by the match of the event right after it
THREAD_LEADERS = 3        # the best events whose follow-up question's answer is lifted too
THREAD_GAP = timedelta(minutes=10)   # the most a follow-up and its answer lag in one conversation
MEASURE_LIFT = 1.0        # a passage giving the measure a question asks for scores (1 + this) times


@dataclass
class Retrieved:
    excerpts: list[Excerpt]
    paths: list[str]   # vault-relative paths of the LTM files read


def retrieve(index: "SearchIndex", queries: list[str], *, limit: int = 8, per_query: int = PER_QUERY,
             pool: int = POOL, prompt: str = "", meaning: "Meaning | None" = None,
             recent: Sequence[str] = ()) -> Retrieved:
    """The excerpts for a turn. `meaning`: the prompt's closeness to passages, when an
    embedding model is configured (meaning.py); without it the ranking is by words. `recent`:
    short-term memory's events, ranked with the rest, for a host that does not see them (a
    newer value said there makes an older one in a note history)."""
    fused: dict[str, float] = {}
    hits_by_path = {}
    # the index stems by rule: "ran", "bought" are searched for as themselves ("how much running?")
    forms = textutil.irregular_forms_in(prompt)
    for query in [*queries, " ".join(forms)] if forms else queries:
        for rank, hit in enumerate(index.search(query, limit=per_query, sync=False, excerpts=False)):
            if not answers(hit.kind, hit.path):
                continue
            fused[hit.path] = fused.get(hit.path, 0.0) + 1.0 / (RRF_K + rank + 1)
            hits_by_path.setdefault(hit.path, hit)
    ranked = sorted(fused, key=lambda p: -fused[p])[:max(pool, limit)]
    vault = index.vault
    passages: list[Passage] = []
    for rank, path in enumerate(ranked):
        hit = hits_by_path[path]
        passages += note_passages(vault, path, rank, hit.title, hit.uuid)
    passages += event_passages(list(recent), SHORT_TERM, "short-term memory", 0)
    weights = _weights(queries, prompt)
    _score(passages, weights, len(ranked), meaning)
    weights = _feedback(passages, weights)
    passages = _spread(vault, passages, weights, len(ranked), meaning)
    asked = prompt or " ".join(queries)
    spans = date_spans(asked, clock.now().astimezone())   # the person's today
    if spans:
        lift_periods(vault, passages, spans, len(ranked), asked)
    bring_replacements(index, passages, len(ranked), prompt)
    measured, holders = measures.asked(prompt), measures.holders_of(prompt)
    _lift_measures(passages, measured, holders)
    lift_speakers(passages, prompt)
    own_terms = frozenset(t for t, w in weights.items() if w >= 1.0)
    for p in passages:
        # what was just said is the queries' context: it enters by the prompt's own words, or by
        # giving the measure asked for ("Down to 86 kg these days" for "How much do I weigh?")
        if p.path == SHORT_TERM and not p.words & own_terms and \
                not (measured and measures.states(statement(p.text), measured, holders)):
            p.score = 0.0
    lift_standing(passages)
    lift_applying(passages, own_terms, prompt)
    rank_current(passages, own_terms, measured, vault.root)
    lift_parts(passages, prompt, weights)
    lift_sides(passages, prompt, own_terms)
    chosen = distinct(sorted(passages, key=lambda p: -p.score), limit, weights)
    excerpts, last_path = [], None
    own = written(chosen, vault.root)
    for passage in chosen:
        # an archived event names itself (its ### id); other notes' titles are said once
        title = "" if passage.path == last_path or passage.text.startswith("### ") else passage.title
        excerpts.append(Excerpt(uuid=passage.uuid, path=passage.path, title=title, text=passage.text,
                                score=passage.score, written=None if passage.cites else own.get(passage.path)))
        last_path = passage.path
    used = list(dict.fromkeys(e.path for e in excerpts))
    return Retrieved(excerpts, used)


def _weights(queries: list[str], prompt: str) -> dict[str, float]:
    """Query terms and their weights: the prompt's own words count fully, words only a query
    has (context standing in for a pronoun, a model's related words) less."""
    own = set(content_terms(prompt))
    weights: dict[str, float] = {}
    for t in content_terms(" ".join([*queries, prompt])):
        weights[t] = max(weights.get(t, 0.0), 1.0 if t in own or not own else ADDED_TERM)
    return weights


def _feedback(passages: list[Passage], weights: dict[str, float]) -> dict[str, float]:
    """Pseudo-relevance feedback: the words the best passages share (and few others have) join
    the query terms, lightly, so an answer worded differently from the prompt can still rise."""
    top = [p for p in sorted(passages, key=lambda p: -p.score)[:FEEDBACK_PASSAGES] if p.score > 0]
    if not top:
        return weights
    df: dict[str, int] = {}
    for p in passages:
        for t in p.words:
            df[t] = df.get(t, 0) + 1
    n = len(passages)
    gain: dict[str, float] = {}
    for p in top:
        for t in p.words:
            if t not in weights and df[t] < 0.2 * n and t not in textutil.generic_stems():
                gain[t] = gain.get(t, 0.0) + math.log(1 + n / df[t])
    out = dict(weights)
    for t in sorted(gain, key=lambda t: (-gain[t], t))[:FEEDBACK_TERMS]:
        out[t] = FEEDBACK_WEIGHT
    return out


def _lift_measures(passages: list[Passage], kinds: frozenset[str], holders: frozenset[str]) -> None:
    """A question asking how much someone weighs (how tall, how far, what it cost): the passages
    that give that measure in its unit rise, "Down to 79 kg now" though it shares no word with it."""
    if not kinds:
        return
    named = measures.named_only(kinds)   # a time of day: only the statements that match the question
    for p in passages:
        if (p.score > 0 or not named) and measures.states(statement(p.text), kinds, holders):
            p.score = max(p.score, DAY_FLOOR) * (1 + MEASURE_LIFT)


# ---------------------------------------------------------------------- the conversation around a hit

Listings = dict[str, dict[str, tuple[str | None, str | None]]]   # day -> its events' neighbours


def neighbours(vault: "VaultStore", event_id: str, listings: Listings) -> tuple[str | None, str | None]:
    """The events archived just before and after one event: the turn it answers, the turn that
    answers it. They are on the same day, or on the day before or after when the conversation
    goes on past midnight (turns within THREAD_GAP). `listings` keeps each day's listing for
    the length of one retrieval."""
    listing = _listing(vault, event_id[:10], listings)
    if event_id not in listing:
        return None, None
    before, after = listing[event_id]
    if after is None or before is None:
        try:
            day = date.fromisoformat(event_id[:10])
        except ValueError:
            return before, after
        if after is None:
            first = next(iter(_listing(vault, (day + timedelta(days=1)).isoformat(), listings)), None)
            after = first if _soon_after(event_id, first) else None
        if before is None:
            last = next(reversed(_listing(vault, (day - timedelta(days=1)).isoformat(), listings)), None)
            before = last if _soon_after(last, event_id) else None
    return before, after


def _listing(vault: "VaultStore", day: str, listings: Listings) -> dict[str, tuple[str | None, str | None]]:
    if day not in listings:
        listings[day] = day_events(event_folder(vault, day + "T"))
    return listings[day]


def _spread(vault: "VaultStore", passages: list[Passage], weights: dict[str, float], notes_found: int,
            meaning: "Meaning | None" = None) -> list[Passage]:
    """Spreading activation along the conversation (step 4 above); scores every passage again."""
    best: dict[str, float] = {}
    for p in passages:
        if p.event:
            best[p.event] = max(best.get(p.event, 0.0), p.score)
    have = set(best)
    listings: Listings = {}   # one listing per day folder per turn
    for i, event in enumerate(sorted((e for e in best if best[e] > 0), key=lambda e: -best[e])[:SPREAD_EVENTS]):
        before, after = neighbours(vault, event, listings)
        follow_up = after if i < THREAD_LEADERS and _soon_after(event, after) and _is_open_question(vault, after) \
            else None
        answer = neighbours(vault, follow_up, listings)[1] if follow_up else None
        answer = answer if _soon_after(follow_up, answer) else None
        for near in (before, after, answer):
            if near and near not in have:
                have.add(near)
                passages += note_passages(vault, event_rel(near), notes_found)
    _score(passages, weights, notes_found, meaning)
    match: dict[str, float] = {}
    asks: set[str] = set()
    open_asks: set[str] = set()   # questions with no answer in the same exchange
    for p in passages:
        if p.event:
            match[p.event] = max(match.get(p.event, 0.0), p.match)
            if "?" in p.text:
                asks.add(p.event)
                if _asks_only(p):
                    open_asks.add(p.event)
    leaders = set(sorted(match, key=lambda e: -match[e])[:THREAD_LEADERS])
    for p in passages:
        if p.event:
            before, after = neighbours(vault, p.event, listings)
            asked = match.get(before, 0.0) if before in asks else 0.0
            if before in open_asks and _soon_after(before, p.event):
                followed = neighbours(vault, before, listings)[0]
                if followed in leaders and _soon_after(followed, before):
                    asked += match[followed]
            p.score += AFTER_QUESTION * asked + BEFORE_EVENT * match.get(after, 0.0)
    return passages


def _soon_after(first: str | None, then: str | None) -> bool:
    """Do two events follow each other as turns of one conversation do (a note the person
    wrote to themselves hours later is no answer to their question)?"""
    if not first or not then:
        return False
    try:
        lag = clock.parse_iso(then) - clock.parse_iso(first)
    except ValueError:
        return False
    return timedelta(0) <= lag <= THREAD_GAP


def _is_open_question(vault: "VaultStore", event_id: str) -> bool:
    return any(_asks_only(p) for p in note_passages(vault, event_rel(event_id), 0))


def _asks_only(p: Passage) -> bool:
    """An archived turn that asks and holds no answer of its own (not an exchange with the
    assistant's reply, nor an event cut short, whose reply may be past the cut)."""
    return p.text.startswith("### ") and "?" in p.text and not is_exchange(p.text) and len(p.text) < MAX_PASSAGE_CHARS


def _score(passages: list[Passage], weights: dict[str, float], notes_found: int,
           meaning: "Meaning | None" = None) -> None:
    """Each passage's match with the query terms (BM25), a term weighing more the rarer it is
    among the passages found (a name that is everywhere counts little), long passages paying a
    little, plus the note's own rank as a prior; then its closeness in meaning, if measured."""
    if not passages:
        return
    for p, match in zip(passages, matches(passages, weights)):
        p.match = match
        p.score = match + _prior(p, notes_found) if match > 0 else 0.0
    if meaning is not None:
        meaning.lift(passages, lambda p: _prior(p, notes_found))


def _prior(p: Passage, notes_found: int) -> float:
    """What a passage's note rank adds to its match."""
    return NOTE_PRIOR / (RRF_K + p.note_rank + 1) * RRF_K / max(notes_found, 1)
