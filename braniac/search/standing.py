"""What the person asked for once and for all: "Always use APA 7th edition when I ask about
references", "I prefer lightweight, dependency-free solutions". A standing instruction or a
stated preference shapes every later answer on its subject, so a short statement of one that
matches the prompt rises above passages that match as well but only report what happened.

Only short statements (a sentence or two): inside a long message, an "I prefer" is an aside,
and lifting the whole message would push the facts a question needs out of a small context
(BEAM dev, lifting every such message: -5 points on knowledge updates at 300 words)."""
from __future__ import annotations

import re
from functools import lru_cache

from ..infra.textutil import generic_stems
from ..vault.claims import as_said
from ..vault.layout import event_order, newest_event
from .currency import statement
from .passages import Passage, content_terms, is_exchange

STANDING_LIFT = 1.0       # such a statement scores (1 + this) times (BEAM dev: +0.9 / +2.4 / +1.7 at 300 / 750 / 1500 words)
STANDING_MAX_WORDS = 60   # the person's words of a statement that is only that
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+|,\s+(?=(?:so|and|but)\s)")
_CUES = ("always", "ever", "from now on", "prefer", "rather", "like you to")   # cheap test first
_STANDING = re.compile(
    r"^\W*(?:(?:please|so|and|but)[,\s]+)?(?:always|never|don['’]?t ever)\b"
    r"|\bfrom now on\b"
    r"|\bI(?:['’]d| would)? (?:prefer|rather)\b|\bI(?:['’]d| would) like you to\b|\bmake sure (?:to|you) always\b",
    re.IGNORECASE)
# the condition an instruction names: "…when I ask about triangle area calculations", "whenever I
# ask for references", "if I ask you about deadlines"; it ends where the clause does ("…about
# Python, and never use emojis")
_WHEN_I_ASK = re.compile(r"\b(?:when(?:ever)?|if)\s+I\s+ask\s+(?:you\s+)?(?:about|for)\s+"
                         r"(?P<what>.+?)(?=\s*(?:[,.;:!?()\n—–]|\s(?:and|but|so|because)\s)|$)", re.I)
CONDITION_SHARE = 0.5     # of the condition's words the prompt must hold for it to be met


@lru_cache(maxsize=16384)
def _states_standing(text: str) -> bool:
    """Does a passage's text (an archived exchange, a digest line, a person's own line) hold
    the person's statement of a standing instruction or preference? A topic note's copy keeps
    its date in front ("- 2025-06-02 — Always…"), so an instruction that opens a sentence is
    not found there: one instruction does not take two places in a small context (BEAM dev,
    lifting the copies as well: -0.6 at 300 words, knowledge updates -5)."""
    return is_standing(statement(text))


def is_standing(text: str) -> bool:
    """Does a short text state a standing instruction or a preference?"""
    lowered = text.lower()
    if not any(cue in lowered for cue in _CUES) or len(text.split()) > STANDING_MAX_WORDS:
        return False
    return any(_STANDING.search(s) for s in _SENTENCES.split(text))


def lift_standing(passages: list[Passage]) -> None:
    """Step 6 of retrieval.py: the passages that match the prompt and state what the person
    wants done rise."""
    for p in passages:
        if p.score > 0 and _states_standing(p.text):
            p.score *= 1 + STANDING_LIFT


# a question about what happened or for a fact of the person's ("Did Ana reply to my email?",
# "Who did I say would write my reference?", "What is my accuracy?", "How many problems…?") is
# answered by the facts, not shaped by how the person wants help given
_ABOUT_WHAT_HAPPENED = re.compile(r"\bdid\b|^\W*(?:has|have|had|was|were)\b|^\W*(?:what\s+is\s+my|how\s+many|"
                                  r"how\s+much)\b", re.I)


def lift_applying(passages: list[Passage], asked: frozenset[str], prompt: str) -> None:
    """The instruction whose condition the prompt meets ("Always compare several methods when I
    ask about triangle area calculations", asked "How do I find a triangle's area from its
    medians?") is placed first: it says how the answer must be given, and by words it matches
    the question less than any report on the subject does. One only, so a small context keeps
    its facts: the one meeting most of its condition, the newest of equals (a later "use MLA
    when I ask for references" over the APA it replaces). Its copy in a topic note counts too;
    one memory still enters once (distinct.py). A question about what happened or for a fact
    ("Did Ana reply to my email?", "What is my accuracy?") lifts none. Half a condition of two
    words is one ("…translations of my emails" is met by "Can you help me with an email to Ana?")."""
    ranked = [p for p in passages if p.score > 0]
    if not ranked or not asked or _ABOUT_WHAT_HAPPENED.search(prompt):
        return
    met = []
    for p in ranked:
        condition = applies_when(p.text)
        shared = condition & asked
        if condition and len(shared) >= CONDITION_SHARE * len(condition) and shared - generic_stems():
            # of one instruction's copies, a line of the person's words before the exchange
            # that holds the assistant's "Understood!" as well
            met.append((len(shared) / len(condition), event_order(newest_event(p.cites)) if p.cites else ("", ""),
                        not is_exchange(p.text), p.score, p))
    if met:
        best = max(met, key=lambda m: m[:4])[4]
        best.score = max(best.score, max(p.score for p in ranked) * (1 + 1e-3))


@lru_cache(maxsize=16384)
def applies_when(text: str) -> frozenset[str]:
    """The words of the condition a short standing instruction names, or none ("Tim changes
    the subject whenever I ask about his job" is a report, not an instruction)."""
    said = as_said(statement(text))   # a topic note's copy opens with its day
    if not is_standing(said):
        return frozenset()
    found = _WHEN_I_ASK.search(said)
    return frozenset(content_terms(found["what"])) if found else frozenset()
