"""What may have replaced the best passages though it holds no word of the question: "I sold
the Civic" for "what car do I drive?" after "I drive a 2012 Honda Civic", "I moved to Porto" for
"where do I live?" after "I live in Lisbon". Retrieval searches once more for them, for a question
about now, and currency.py compares what it finds with the passages it may replace."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..vault import relations
from ..vault.parting import had_things
from .currency import may_replace, statement
from .documents import answers
from .passages import Passage, note_passages

if TYPE_CHECKING:
    from .index import SearchIndex

PARTING_LEADERS = 5       # the best passages whose named things are searched for a parting
PARTING_HITS = 10         # notes read for one
_PARTING_WORDS = ("sold", "rid", "gave", "returned", "scrapped", "donated", "traded", "switched", "migrated", "dropped",
                  "ditched", "swapped", "replaced")
_ASKS_NOW = re.compile(r"\b(?:do|does|am|is|are|now|current(?:ly)?|these days)\b", re.I)
_ASKS_THEN = re.compile(r"\b(?:did|was|were|had|used to)\b", re.I)
_CHANGE_WORDS = {"lives in": ("moved",), "works at": ("job", "working")}   # "I moved to…", "a new job at…"


def bring_replacements(index: "SearchIndex", passages: list[Passage], notes_found: int, prompt: str) -> None:
    """The named things the best passages say the person has, and the words by which one says
    a move or a new job, are searched for once more; the statements that may replace them join
    the pool (at score 0) for currency.py to compare."""
    if not _ASKS_NOW.search(prompt) or _ASKS_THEN.search(prompt):
        return   # what happened ("what did I…") has nothing to replace; this search costs a turn ~7 %
    top = sorted((p for p in passages if p.score > 0), key=lambda p: -p.score)[:PARTING_LEADERS]
    said = [statement(p.text) for p in top]
    things = list(dict.fromkeys(t for s in said for t in had_things(s)))[:6]
    words = [*things, *_PARTING_WORDS] if things else []
    for s in said:
        words += _CHANGE_WORDS.get(relations.persons_relation(s) or "", ())
    if not words:
        return
    have = {p.path for p in passages}
    for hit in index.search(" ".join(dict.fromkeys(words)), limit=PARTING_HITS, sync=False, excerpts=False):
        if answers(hit.kind, hit.path) and hit.path not in have:
            passages += [p for p in note_passages(index.vault, hit.path, notes_found, hit.title, hit.uuid)
                         if may_replace(statement(p.text))]
