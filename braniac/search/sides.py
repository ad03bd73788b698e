"""A yes-or-no question about the person's own past ("Have I ever worked with Flask routes?",
"Did I obtain an API key?") is answered by what they said either way: "I've never written any
Flask routes" as much as "I added a /register route". People contradict themselves over a long
conversation, and an answer that sees only one side is wrong half the time. Ranked by words, the
statements of doing it are many and alike, and the one "I've never…" falls below them in a small
context. So the best statement that says no is placed right behind the best passage of all, and,
when the best says no, the best that does not.
"""
from __future__ import annotations

import re

from .passages import Passage, matches, said_terms

# "Have I…?", "Did we ever…?", "Has Tim been to…?": a question of whether someone did or does
_ABOUT_ME = re.compile(r"^\s*(?:have|has|had|did|do|does|am|is|are|was|were)\s+(?!you\b)\w", re.I)
# what says no: "I've never", "I haven't yet", "not once"; not "don't" or "didn't", which say
# as often that something went wrong ("I didn't understand the error")
_SAYS_NO = re.compile(r"\b(?:never|have\s+not|has\s+not|had\s+not|haven['’]t|hasn['’]t|hadn['’]t|not\s+yet|"
                      r"not\s+once)\b", re.I)
SIDE_SHARE = 0.5     # of the question's own terms a statement must hold to speak to it


def is_yes_no_about_me(prompt: str) -> bool:
    return bool(_ABOUT_ME.match(prompt))


def says_no(p: Passage) -> bool:
    """Does the passage's person say no: their words, not the assistant's answer."""
    text = p.text.partition("\n**AI:**")[0]
    return bool(_SAYS_NO.search(text))


def lift_sides(passages: list[Passage], prompt: str, own_terms: frozenset[str]) -> None:
    """Place the best statement of the other side right behind the best passage of all (scores
    are raised, never lowered)."""
    ranked = [p for p in passages if p.score > 0]
    if not ranked or not own_terms or not is_yes_no_about_me(prompt):
        return
    top = max(ranked, key=lambda p: p.score)
    scores = matches(ranked, {t: 1.0 for t in own_terms})
    speaks = [(s, p) for s, p in zip(scores, ranked)
              if s > 0 and len(said_terms(p.text, p.words) & own_terms) >= SIDE_SHARE * len(own_terms)]
    other = [(s, p) for s, p in speaks if says_no(p) != says_no(top)]
    if other:
        best = max(other, key=lambda pair: (pair[0], pair[1].score))[1]
        best.score = max(best.score, top.score * (1 - 1e-3))
