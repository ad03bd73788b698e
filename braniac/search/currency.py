"""The current value wins: of two passages that state different values of one thing ("the
staging port is 8080" / "… is 9090"), the one resting on the later event ranks above the other,
and the older one is labelled as history, with the date its value stopped being current.

What counts as "one thing, another value" is `vault.claims`' own reading (`compare` gives
CHANGED, or `contradicts`), the rule promotion uses to supersede a claim into a note's History;
a claim already in a History (` — superseded on DATE`) is history by its own words. So the
archived events, the day's digest and the notes that still quote an old value all give way to
the newest statement, and an answer built from the working memory can say "now X (was Y until
DATE)".
"""
from __future__ import annotations

import re

from ..vault import claims, stm
from .passages import Passage

CURRENCY_POOL = 48        # the best passages compared with each other (pairs: n²/2, each cheap)
HISTORY_LABEL = "_(history — superseded on {date})_"   # the words a History line ends with
_SUPERSEDED_ON = re.compile(r"\s—\s+superseded on (\d{4}-\d{2}-\d{2})\b")
_CLOCK = re.compile(r"^\d{2}:\d{2}\s+[—–-]\s+")        # a digest line opens with the event's time


def statement(p: Passage) -> str:
    """What a passage states: the person's words of an archived event (never the AI's answer),
    a claim's text without its citations, date or time."""
    text = p.text
    if text.startswith("### "):
        heading, _, _ = text.partition("\n")
        return stm.Event(heading[4:].strip(), text).fields.get("User", "")   # quotes, "> " lines decoded
    fact = claims.parse_fact(text.split("\n", 1)[0])
    said = fact.text if fact is not None else text
    return _CLOCK.sub("", _SUPERSEDED_ON.sub("", said))


def rank_current(passages: list[Passage]) -> None:
    """Reorder and label in place (see the module's docstring)."""
    best = sorted((p for p in passages if p.score > 0 and p.cites), key=lambda p: -p.score)[:CURRENCY_POOL]
    if len(best) < 2:
        return
    when = {id(p): max(p.cites) for p in best}
    until: dict[int, str] = {}
    for p in best:
        marked = _SUPERSEDED_ON.search(p.text)
        if marked:
            until[id(p)] = marked.group(1)
    facts = {id(p): claims.Fact(statement(p)) for p in best}
    edges: list[tuple[Passage, Passage]] = []       # (older, newer) statements of one thing
    for i, old in enumerate(best):
        for new in best[i + 1:] + best[:i]:
            if when[id(new)] <= when[id(old)] or not facts[id(old)].text or not facts[id(new)].text:
                continue
            a, b = facts[id(old)], facts[id(new)]
            if claims.compare(a, b) == claims.CHANGED or claims.contradicts(a, b):
                edges.append((old, new))
                day = when[id(new)][:10]
                until[id(old)] = min(until.get(id(old), day), day)
    # older first: each newer statement rises just above every older one it replaces
    for old, new in sorted(edges, key=lambda e: when[id(e[0])]):
        if new.score <= old.score:
            new.score = old.score * 1.001 + 1e-9
    old_events: dict[str, list[tuple[frozenset[str], str]]] = {}
    for p in best:
        if id(p) in until and p.event:
            old_events.setdefault(p.event, []).append((p.words, until[id(p)]))
    # every passage that holds an old statement is labelled, not only the ones compared: the
    # fullest passage of an event takes the place of its parts when the excerpts are chosen
    for p in passages:
        day = until.get(id(p)) or min((d for words, d in old_events.get(p.event or "", ()) if words <= p.words),
                                      default=None)
        if day and not _SUPERSEDED_ON.search(p.text) and HISTORY_LABEL.format(date=day) not in p.text:
            p.text = _labelled(p.text, day)


def _labelled(text: str, day: str) -> str:
    label = HISTORY_LABEL.format(date=day)
    if text.startswith("### "):        # an archived event keeps its heading first: it names itself
        heading, _, rest = text.partition("\n")
        return f"{heading}\n{label}\n{rest}"
    return f"{text}\n{label}"
