"""A yes-or-no question about what someone did ("Have I ever worked with Flask routes?", "Has Tim
been to North Carolina?") is answered by what was said either way: "I've never written any Flask
routes" as much as "I added a /register route". People contradict themselves over a long
conversation, and an answer that sees only one side is wrong half the time. Ranked by words, the
statements of doing it are many and alike, and the one "I've never…" falls below them in a small
context. So the best statement of the other side is placed right behind the best passage of all.

A statement says no when its subject is the question's: "I've never…" for "Have I…?", Tim's own
"I haven't…" or "Tim has never…" for "Has Tim…?"; not "My sister has never been there", "I'll
never forget it" or a quoted "migration has not been applied".
"""
from __future__ import annotations

import re

from .currency import statement
from .focus import speaker
from .passages import Passage, content_terms, matches, said_terms
from .standing import is_standing

_AUX = r"(?:have|has|had|did|do|does|am|was|were|haven['’]t|hasn['’]t|didn['’]t|don['’]t|doesn['’]t|wasn['’]t)"
# "Have I…?", "So, did we ever…?", "Quick question: has Tim…?": the question and whom it asks about
_ASKED = re.compile(rf"(?:^|[.:;!?]\s+|^\w+,\s+)\s*{_AUX}\s+(?P<who>I|we|[A-Z][a-z]+)\b(?!['’]s)", re.I)
_NOT_A_PERSON = frozenset({"it", "there", "this", "that", "these", "those", "the", "a", "an", "any", "my",
                           "your", "our", "you", "they", "he", "she", "his", "her", "their", "its"})
_NO = r"(?:never|not\s+yet|not\s+once|haven['’]t|hasn['’]t|hadn['’]t|have\s+not|has\s+not|had\s+not|['’]ve\s+not|" \
      r"have\s+no\s+experience|had\s+no\s+experience)"
# a few words may stand between the subject and its "no" ("I honestly have never"), not a future
_BETWEEN = r"(?:['’](?:ve|d|s))?(?:\s+(?!will\b|would\b|shall\b|can\b|could\b|['’]ll\b)[\w’']+){0,2}?\s*"
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
SIDE_SHARE = 0.5     # of the question's own terms the sentence saying no must hold


def asked_about(prompt: str) -> str | None:
    """Whom a yes-or-no question asks about ("i" for I or we, else a name lowercased: a person,
    or a thing named as one, "Does Stripe support refunds?"), or None for any other question
    ("Is it raining?", "Does the API support refunds?")."""
    for found in _ASKED.finditer(prompt):
        who = found["who"].lower()
        if who in ("i", "we"):
            return "i"
        if found["who"][0].isupper() and who not in _NOT_A_PERSON:
            return who
    return None


def _says_no(sentence: str, who: str) -> bool:
    subject = r"(?:i|we)" if who == "i" else re.escape(who)
    return bool(re.search(rf"\b{subject}{_BETWEEN}{_NO}\b", sentence, re.I))


def says_no(p: Passage, who: str, asked: frozenset[str]) -> bool:
    """Does the passage's person say, of the one asked about, that they did not do what the
    question asks (a sentence with the question's words and a "never" whose subject is them)?"""
    said = statement(p.text)
    who_said = speaker(p)
    if who_said and said.startswith(who_said + ":"):
        said = said[len(who_said) + 1:]
    for sentence in _SENTENCE.split(said):
        terms = set(content_terms(sentence))
        if len(terms & asked) <= SIDE_SHARE * len(asked):
            continue
        if _says_no(sentence, who) or (who_said and who_said.split()[0].lower() == who and _says_no(sentence, "i")):
            return True
    return False


def lift_sides(passages: list[Passage], prompt: str, own_terms: frozenset[str]) -> None:
    """Place the best statement of the other side right behind the best passage of all (scores
    are raised, never lowered). The side is read off the best statement that speaks to the
    question, not off an instruction placed first (standing.py)."""
    who = asked_about(prompt)
    ranked = [p for p in passages if p.score > 0]
    if who is None or not ranked or not own_terms:
        return
    asked = own_terms - {who}
    if not asked:
        return
    top = max(p.score for p in ranked)
    scores = matches(ranked, {t: 1.0 for t in asked})
    speaks = [(s, p) for s, p in zip(scores, ranked)
              if s > 0 and len(said_terms(p.text, p.words) & asked) >= SIDE_SHARE * len(asked)
              and not is_standing(statement(p.text))]
    if not speaks:
        return
    first = max(speaks, key=lambda pair: pair[1].score)[1]
    no = says_no(first, who, asked)
    other = [(s, p) for s, p in speaks if says_no(p, who, asked) != no]
    if other:
        best = max(other, key=lambda pair: (pair[0], pair[1].score))[1]
        best.score = max(best.score, top * (1 - 1e-3))
