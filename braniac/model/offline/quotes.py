"""The memories an offline answer quotes (engine.py's `answer`): what each says and when, which
are current, what a current one replaced (quoted after it as history, with the day it ended), the
open tasks a "what do I need to do?" lists, and the statements of a period the question names."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...infra import clock, measures, textutil
from ...infra.date_spans import about_the_period, asks_what_was_said, date_spans, period_stems
from ...infra.relative_times import resolve_relative
from ...vault import claims, relations, stm
from ...vault.layout import EVENT_ID_IN_TEXT, event_day, is_digest_summary
from ...vault.value_changes import SAID_ALONE_WORDS, replaced_for_the_question
from ...vault.word_changes import restated
from .sentences import sentences
from ..types import WorkingMemory

# a statement of the period the prompt names ranks above one that only holds all its words
# ("Visited my parents for the weekend", two weeks before "what did I do over the weekend?")
IN_THE_PERIOD = 1.5
IN_THE_PERIOD_UNNAMED = 1.0   # one of the period that holds none of the question's other words
ME = frozenset({"i"})   # whose a statement is when its subject is the person (owner)
# the person asking what is left for them to do (not "which task does the billing job run?")
ASKS_TASKS = re.compile(r"\b(?:(?:my|our)\s+(?:open\s+)?(?:tasks|to-?dos?|to-do list)|(?:i|we)\s+(?:still\s+)?"
                        r"(?:need|have|got)\s+to\s+do|on\s+my\s+(?:list|plate))\b", re.I)


@dataclass
class Quote:
    score: float
    text: str
    source: str
    when: str | None = None        # the newest event it rests on
    superseded: bool = False       # a claim in a note's History, or a statement taken back since
    until: str | None = None       # the day it was superseded, when known
    said: str = ""                 # the whole statement it quotes from
    matched: bool = True           # it holds a word of the question (or of the context standing in for it)
    order: float = 0.0             # a tiebreak: short-term memory first, then retrieval's rank
    mine: bool = False             # its subject is whom the question asks about (the person: "I live…")
    by_file: bool = False          # `when` is when the person's own note was written at the latest:
    #                                it may have been superseded since, but supersedes nothing


def statements(said: str) -> str:
    """What the person stated: their words without the questions they asked."""
    return " ".join(s.strip() for s in sentences(said.strip(), any_case=True) if s.strip() and not s.strip().endswith("?"))


def evidence(text: str) -> tuple[str, str | None, bool]:
    """(what an excerpt states, the newest event it rests on, whether it is a superseded claim).
    An archived event states what the person said: never braniac's own answer (its AI field,
    which may quote memories since superseded), its notes, or the person's questions."""
    if text.startswith("### "):
        heading, _, rest = text.partition("\n")
        event = stm.Event(heading[4:].strip(), text)
        fields = event.fields
        said = fields.get("User", "") if fields else event.text
        # retrieval labels an event that a later one took back on the line after its heading
        return statements(said), event.id, bool(claims.SUPERSEDED_ON.search(rest.partition("\n")[0]))
    if is_digest_summary(text):
        return "", None, False   # (it names a day, which would make it "what happened" that day)
    cited = EVENT_ID_IN_TEXT.findall(text)
    return text, max(cited, key=_moment) if cited else None, bool(claims.SUPERSEDED_ON.search(text))


def _moment(event_id: str | None) -> str:
    """An event id that sorts by time ("…:25Z" before "…:25.001Z")."""
    return event_id.replace("Z", ".000Z") if event_id and "." not in event_id else event_id or ""


def current(quotes: list[Quote]) -> list[Quote]:
    """Of two quotes that state different values of one thing ("the port is 8080" / "the port
    is 9090"), only the newer: a claim superseded in a History is older than any other, else the
    one resting on the later event wins (a raw event that stated an older value gives way to
    the current claim)."""
    def age(q: Quote) -> tuple[int, str]:
        return (0 if q.superseded else 1, "" if q.by_file else _moment(q.when))
    kept = []
    for quote in quotes:
        newer = (other for other in quotes if other is not quote and age(other) > age(quote))
        if not any(claims.compare(claims.Fact(quote.text), claims.Fact(other.text)) == claims.CHANGED
                   for other in newer):
            kept.append(quote)
    return kept


def newer_first(quotes: list[Quote], about: frozenset[str]) -> None:
    """Of two current quotes that give one thing other values, though no rule reads that the
    newer replaced the older (word_changes.restated), the newer comes first; neither is labelled."""
    dated = sorted((q for q in quotes if q.when and not q.superseded), key=lambda q: _moment(q.when))
    for i, old in enumerate(dated):
        for new in dated[i + 1:]:
            if _moment(new.when) > _moment(old.when) and not new.by_file and \
                    restated(_said_then(old), _said_then(new), about):
                new.score, new.order = max(new.score, old.score), max(new.order, old.order + 0.001)


def replaced(quotes: list[Quote], pool: list[Quote], about: frozenset[str],
              measured: frozenset[str] = frozenset()) -> list[Quote]:
    """Each quote that a newer statement in the working memory replaced is history, dated the
    day of that statement ("I decided on cedar" / "I changed my mind: larch"; "I work at Acme" /
    "I started a new job at Globex"), in short-term memory before any promotion compared them
    as in long-term memory. The replacing statement is quoted too, though it may hold none of
    the question's words ("Ana moved to Lisbon" for "where does my sister live?"): the answer
    says what is true now, then what was. Returns the statements to add."""
    added: list[Quote] = []
    oldest_first = sorted((q for q in pool if q.when), key=lambda q: _moment(q.when))
    # oldest first, so that what a statement replaced is known when it is compared in turn
    olds = sorted((q for q in quotes if q.when), key=lambda q: _moment(q.when))
    stated = {id(q): claims.Fact(_said_then(q)) for q in [*olds, *oldest_first]}   # each dated once, not per pair
    # what a statement that replaced another speaks of (as retrieval's currency reads it): "My
    # doctor raised the lisinopril to 20 mg" is the "I take 10 mg…" it replaced
    thing: dict[int, str] = {}
    for old in olds:   # (grows: what replaced a quote may itself have been replaced since)
        was = stated[id(old)]
        # the first statement that replaced it: each step of a chain of changes is quoted, and
        # each ended the day the next was said (Lisbon, then Porto, then Braga)
        for new in oldest_first:
            if _moment(new.when) <= _moment(old.when) or new.by_file:
                continue
            now = stated[id(new)]
            alike = claims.alike(textutil.terms(was.text), textutil.terms(now.text))
            # a note's History says the day its claim was superseded: the claim it got that day
            # replaced it, as promotion found ("We migrated from CircleCI to GitHub Actions")
            noted = old.superseded and old.until == new.when[:10] and new.source == old.source
            if noted or claims.contradicts(was, now, one_value_only=not alike) or claims.compare(was, now) == claims.CHANGED or \
                    replaced_for_the_question(thing.get(id(old), was.text), now.text, about, measured) or \
                    id(old) in thing and len(was.text.split()) <= SAID_ALONE_WORDS and \
                    replaced_for_the_question(was.text, now.text, about, measured):
                # (and what it says alone: "slipped to June 15", then "now July 1", where June 1's "1" is no value)
                thing.setdefault(id(new), f"{now.text} {thing.get(id(old), was.text)}")
                if not old.superseded:
                    old.superseded, old.until = True, new.when[:10]
                new.score = max(new.score, old.score)   # as relevant as what it replaced
                if new not in quotes and new not in added:
                    added.append(new)
                    olds.append(new)
                break
    return added


def _said_then(quote: Quote) -> str:
    """A quote's statement with its relative times dated as promotion dates them ("moved to
    next Tuesday (2025-05-13)"), so short-term memory compares as long-term memory does."""
    said = quote.said or quote.text
    try:   # a hand-edited short-term memory may head an event with anything, "2025-02-30T…" too
        return claims.stated(resolve_relative(said, event_day(quote.when)))
    except (TypeError, ValueError):
        return claims.stated(said)


def open_tasks(wm: WorkingMemory) -> list[Quote]:
    """"What do I need to do?", "what's on my to-do list?": the open tasks of short-term memory
    answer it, though "call the plumber" shares no word with it."""
    if not ASKS_TASKS.search(wm.prompt):
        return []
    tasks = [item.text for item in stm.parse(wm.short_term).items(stm.TASKS) if item.done is False]
    return [Quote(1.05, text, "short-term memory, open task") for text in tasks]


def periods_asked(wm: WorkingMemory) -> list[tuple[str, str]]:
    """The periods the prompt names, counted from the person's today."""
    try:
        today = clock.parse_iso(wm.now).astimezone() if wm.now else clock.now().astimezone()
        return date_spans(wm.prompt, today)
    except ValueError:
        return []


def without_the_period(query: set[str], spans: list[tuple[str, str]]) -> set[str]:
    """The question's words but those naming the period it asks about (`spans`, periods_asked):
    "yesterday" matches the "Yesterday (2025-01-12) I…" of any month, which the period's own
    days answer."""
    if not spans:
        return query
    return {w for w in query if textutil.stem(w) not in period_stems()}


def in_the_period(pool: list[Quote], wm: WorkingMemory, query: set[str], spans: list[tuple[str, str]]) -> None:
    """"What did I do last weekend?": what happened then answers it, whatever its words. A
    statement on a day of the period the prompt names (`spans`) is relevant, above a word match;
    when the question names more than the period ("how many times did I go running this
    week?"), the statements of that period that hold a word of it (`query`, without the
    period's own words) come first."""
    if not spans:
        return
    then, said_then = [], asks_what_was_said(wm.prompt)
    for quote in pool:
        try:
            day = event_day(quote.when).isoformat() if quote.when else ""
        except ValueError:
            continue
        if about_the_period([day] if day else [], quote.said or quote.text, spans, said_then=said_then):
            then.append(quote)   # (also "On Saturday (2025-03-08) I hiked…", said on the Monday)
    for quote in then:
        # every statement of the period stays in (a run said "ran 8k" is still a run), those
        # that hold the question's other words first ("running", not this week's lunch)
        named = not query or textutil.overlap(query, quote.said or quote.text) > 0
        quote.score += IN_THE_PERIOD if named else IN_THE_PERIOD_UNNAMED
        quote.matched = True


def owner(said: str) -> frozenset[str] | None:
    """Whose a statement is, by its subject: the person's (ME: "I live in Lisbon"), "sister"
    ("My sister lives in Porto"), "dog" ("Our dog is called Rex"); None when it has no subject."""
    found = relations.relation_of(claims.Fact(claims.stated(said)).text)
    if not found:
        return None
    return ME if found[0].lower() in ("i", "we") else measures.holders_of(found[0])
